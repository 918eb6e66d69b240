#!/usr/bin/env python3
"""A damped pendulum served over smrl's external-environment protocol.

Python standard library only: run it with any python3 (docs/external.md).
smrl writes one JSON message per line on this program's stdin and reads one
answer per line from its stdout:

  {"spec": {}}         -> obs_dim, action_dim, action_low, action_high, horizon, can_restore
  {"reset": SEED}      -> {"obs": [theta, omega]}
  {"step": [a]}        -> {"obs": [...], "reward": r, "terminated": false, "truncated": false}
  {"get_state": true}  -> {"state": [theta, omega]}
  {"set_state": STATE} -> {}
  {"close": true}      -> (exits)

The dynamics (theta = 0 upright, not wrapped: the reward counts whole turns,
so the task is to stand up without spinning; u = clip(a, +-2)):

  omega' = clip(omega + dt*(g/l*psin(theta) - b*omega + k*u), +-max_speed)
  theta' = theta + dt*omega'
  r(s, a) = -(theta^2 + 0.1*omega^2 + 0.001*u^2)

psin is sin's Taylor polynomial to x^15 after reduction to [-pi, pi) (error
< 1e-9), computed with +, -, *, / and floor only, so that smrl's Go copy of this environment
(internal/testutil/damped.go) gives the same bits: the libm sin of Python
and Go's math.Sin may differ in the last bit. The observation is the state,
so get_state and set_state are the observation itself.

Options: --horizon N (default 100).
"""
import json
import math
import sys

GAIN, DAMPING, TORQUE_GAIN, DT, MAX_SPEED, MAX_TORQUE = 10.0, 0.1, 3.0, 0.05, 8.0, 2.0
INIT_THETA, INIT_SPEED = 3.141592653589793, 1.0
PI, TWO_PI = 3.141592653589793, 6.283185307179586
SIN_COEF = (1.0, -0.16666666666666666, 0.008333333333333333, -0.0001984126984126984,
            2.7557319223985893e-06, -2.505210838544172e-08, 1.6059043836821613e-10,
            -7.647163731819816e-13)
MASK = (1 << 64) - 1


def psin(x):
    x = wrap(x)
    x2 = x * x
    p = SIN_COEF[7]
    for k in range(6, -1, -1):
        p = p * x2 + SIN_COEF[k]
    return p * x


def wrap(th):
    return th - TWO_PI * float(math.floor((th + PI) / TWO_PI))


def clip(x, m):
    return min(max(x, -m), m)


def uniforms(seed):
    """Two uniforms in [0, 1) from SplitMix64 seeded with seed (53 bits each)."""
    x = seed & MASK
    out = []
    for _ in range(2):
        x = (x + 0x9E3779B97F4A7C15) & MASK
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z ^= z >> 31
        out.append(float(z >> 11) * 2.0 ** -53)
    return out


def reward(th, w, u):
    return -(th * th + 0.1 * w * w + 0.001 * u * u)


def step(th, w, a):
    u = clip(a, MAX_TORQUE)
    acc = GAIN * psin(th) - DAMPING * w + TORQUE_GAIN * u
    w = clip(w + DT * acc, MAX_SPEED)
    return th + DT * w, w


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    horizon = 100
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--horizon":
        horizon = int(args[1])
    elif args:
        sys.exit("usage: damped_pendulum.py [--horizon N]")
    th, w = 0.0, 0.0
    for line in sys.stdin:
        msg = json.loads(line)
        if "spec" in msg:
            send({"obs_dim": 2, "action_dim": 1, "action_low": [-MAX_TORQUE], "action_high": [MAX_TORQUE],
                  "horizon": horizon, "can_restore": True})
        elif "reset" in msg:
            u1, u2 = uniforms(msg["reset"])
            th, w = INIT_THETA * (2 * u1 - 1), INIT_SPEED * (2 * u2 - 1)
            send({"obs": [th, w]})
        elif "step" in msg:
            a = float(msg["step"][0])
            r = reward(th, w, clip(a, MAX_TORQUE))
            th, w = step(th, w, a)
            send({"obs": [th, w], "reward": r, "terminated": False, "truncated": False})
        elif "get_state" in msg:
            send({"state": [th, w]})
        elif "set_state" in msg:
            th, w = (float(v) for v in msg["set_state"])
            send({})
        elif "close" in msg:
            return
        else:
            send({"error": "unknown message %r" % line.strip()})


if __name__ == "__main__":
    main()
