#!/usr/bin/env python3
"""Serve a Gymnasium environment to smrl over env.kind external's protocol.

    python3 smrl_gym.py ENV [--horizon N] [--kwargs JSON] [--restore mujoco]

ENV is a Gymnasium id (Pendulum-v1, needs `pip install gymnasium`) or an
import path module:callable returning an environment with Gymnasium's API
(reset(seed=...) -> (obs, info), step(a) -> (obs, reward, terminated,
truncated, info), observation_space, action_space). The protocol is
docs/external.md's: one JSON message per line on stdin, one answer per line
on stdout. Observations are flattened to a list of float64; a Box action
space becomes smrl's box (action_dim, action_low, action_high), a
Discrete(n) one the actions [[0], [1], ..., [n-1]]. The horizon is the
environment's max_episode_steps unless --horizon is given.

--restore mujoco declares can_restore for a MuJoCo environment (its state
is (qpos, qvel), the time and the step counts of its TimeLimit wrappers,
restored with set_state), so that smrl's oracle can plan with it; an environment whose state holds more (a random
generator drawn from inside step) must not be declared restorable.

Anything the environment prints goes to stderr: stdout carries the
protocol only.
"""
import argparse
import importlib
import json
import math
import sys

PROTOCOL_OUT = sys.stdout
sys.stdout = sys.stderr  # stray prints must not corrupt the protocol


def send(obj):
    # allow_nan: a NaN reaches smrl as NaN, which it reports as a
    # non-finite number naming the message.
    PROTOCOL_OUT.write(json.dumps(obj) + "\n")
    PROTOCOL_OUT.flush()


def flat(x):
    """x (a number, a nested list or an array) as a flat list of floats."""
    if hasattr(x, "tolist"):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            out.extend(flat(v))
        return out
    return [float(x)]


def make(name, kwargs):
    if ":" in name:
        module, attr = name.split(":", 1)
        return getattr(importlib.import_module(module), attr)(**kwargs)
    import gymnasium
    return gymnasium.make(name, **kwargs)


def spec_of(env, horizon, restore):
    obs_space, act_space = env.observation_space, env.action_space
    shape = getattr(obs_space, "shape", None)
    if not shape:
        raise ValueError("the observation space %r has no shape" % (obs_space,))
    spec = {"obs_dim": math.prod(shape)}
    if hasattr(act_space, "n"):  # Discrete(n), maybe with a start
        start = int(getattr(act_space, "start", 0))
        spec["actions"] = [[float(start + i)] for i in range(int(act_space.n))]
    else:
        spec["action_dim"] = math.prod(act_space.shape)
        spec["action_low"] = flat(act_space.low)
        spec["action_high"] = flat(act_space.high)
    if horizon is None:
        es = getattr(env, "spec", None)
        horizon = getattr(es, "max_episode_steps", None)
    if not horizon:
        raise ValueError("the environment declares no max_episode_steps: give --horizon")
    spec["horizon"] = int(horizon)
    if restore:
        spec["can_restore"] = True
    return spec


def to_action(act_space, a):
    if hasattr(act_space, "n"):
        return int(round(a[0]))
    try:
        import numpy
        return numpy.asarray(a, dtype=act_space.dtype).reshape(act_space.shape)
    except ImportError:  # a pure-Python environment
        return list(a)


def time_limits(env):
    """The wrappers that count steps (Gymnasium's TimeLimit): their counts
    are part of the state, or the oracle's rollouts would use up the real
    episode's steps."""
    out = []
    while env is not None:
        if hasattr(env, "_elapsed_steps"):
            out.append(env)
        env = getattr(env, "env", None)
    return out


def get_state(env):
    u = env.unwrapped
    return {"qpos": flat(u.data.qpos), "qvel": flat(u.data.qvel), "time": float(u.data.time),
            "elapsed": [w._elapsed_steps for w in time_limits(env)]}


def set_state(env, st):
    u = env.unwrapped
    qpos, qvel = st["qpos"], st["qvel"]
    try:
        import numpy
        qpos, qvel = numpy.asarray(qpos), numpy.asarray(qvel)
    except ImportError:  # a pure-Python stand-in (the tests')
        pass
    u.set_state(qpos, qvel)
    u.data.time = st["time"]
    for w, n in zip(time_limits(env), st["elapsed"]):
        w._elapsed_steps = n


def serve(env, horizon, restore, lines):
    for line in lines:
        msg = json.loads(line)
        try:
            if "spec" in msg:
                send(spec_of(env, horizon, restore))
            elif "reset" in msg:
                obs, _ = env.reset(seed=int(msg["reset"]))
                send({"obs": flat(obs)})
            elif "step" in msg:
                obs, r, term, trunc, _ = env.step(to_action(env.action_space, msg["step"]))
                send({"obs": flat(obs), "reward": float(r), "terminated": bool(term), "truncated": bool(trunc)})
            elif "get_state" in msg and restore:
                send({"state": get_state(env)})
            elif "set_state" in msg and restore:
                set_state(env, msg["set_state"])
                send({})
            elif "close" in msg:
                break
            else:
                send({"error": "unexpected message %s" % line.strip()})
        except Exception as e:  # reported to smrl, which names the message
            send({"error": "%s: %s" % (type(e).__name__, e)})
    env.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("env", help="a Gymnasium id, or module:callable")
    p.add_argument("--horizon", type=int, help="steps per episode (default: max_episode_steps)")
    p.add_argument("--kwargs", default="{}", help="keyword arguments of the environment, as JSON")
    p.add_argument("--restore", choices=["mujoco"], help="declare can_restore (MuJoCo environments)")
    args = p.parse_args()
    env = make(args.env, json.loads(args.kwargs))
    serve(env, args.horizon, args.restore is not None, sys.stdin)


if __name__ == "__main__":
    main()
