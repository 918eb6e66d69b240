# An independent transcription of the acrobot of Sutton and Barto's book as
# Gymnasium's Acrobot-v1 ("book" dynamics) publishes it, written from the
# equations, not from smrl's Go code. It prints the expected values of
# TestAcrobotMatchesPublishedEquations (python3 internal/env/testdata/acrobot_reference.py).
from math import cos, sin, pi

m1 = m2 = 1.0
l1 = 1.0
lc1 = lc2 = 0.5
I1 = I2 = 1.0
g = 9.8
dt = 0.2
MAX_VEL_1, MAX_VEL_2 = 4 * pi, 9 * pi


def dsdt(y, a):
    theta1, theta2, dtheta1, dtheta2 = y
    d1 = m1 * lc1 ** 2 + m2 * (l1 ** 2 + lc2 ** 2 + 2 * l1 * lc2 * cos(theta2)) + I1 + I2
    d2 = m2 * (lc2 ** 2 + l1 * lc2 * cos(theta2)) + I2
    phi2 = m2 * lc2 * g * cos(theta1 + theta2 - pi / 2.0)
    phi1 = (-m2 * l1 * lc2 * dtheta2 ** 2 * sin(theta2)
            - 2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * sin(theta2)
            + (m1 * lc1 + m2 * l1) * g * cos(theta1 - pi / 2) + phi2)
    ddtheta2 = (a + d2 / d1 * phi1 - m2 * l1 * lc2 * dtheta1 ** 2 * sin(theta2) - phi2) / (
        m2 * lc2 ** 2 + I2 - d2 ** 2 / d1)
    ddtheta1 = -(d2 * ddtheta2 + phi1) / d1
    return [dtheta1, dtheta2, ddtheta1, ddtheta2]


def rk4(y0, a):
    k1 = dsdt(y0, a)
    k2 = dsdt([y + dt / 2 * k for y, k in zip(y0, k1)], a)
    k3 = dsdt([y + dt / 2 * k for y, k in zip(y0, k2)], a)
    k4 = dsdt([y + dt * k for y, k in zip(y0, k3)], a)
    return [y + dt / 6.0 * (p + 2 * q + 2 * r + s) for y, p, q, r, s in zip(y0, k1, k2, k3, k4)]


def wrap(x, m, M):
    diff = M - m
    while x > M:
        x = x - diff
    while x < m:
        x = x + diff
    return x


def step(s, a):
    ns = rk4(s, a)
    ns[0] = wrap(ns[0], -pi, pi)
    ns[1] = wrap(ns[1], -pi, pi)
    ns[2] = min(max(ns[2], -MAX_VEL_1), MAX_VEL_1)
    ns[3] = min(max(ns[3], -MAX_VEL_2), MAX_VEL_2)
    return ns


def obs(s):
    return [cos(s[0]), sin(s[0]), cos(s[1]), sin(s[1]), s[2], s[3]]


def terminal(s):
    return -cos(s[0]) - cos(s[1] + s[0]) > 1.0


cases = [
    ([0.05, -0.03, 0.02, 0.01], 1.0),
    ([1.0, -0.5, 2.0, -3.0], -1.0),
    ([3.0, 0.2, 0.5, 0.0], 0.0),   # wraps past π
    ([0.3, 2.0, 12.0, 27.0], 1.0),  # speed limits
    ([2.5, 1.0, -1.0, 0.5], 0.4),
]
for s, a in cases:
    ns = step(s, a)
    print("{%s, %r, %s, %s}," % ("[]float64{" + ", ".join(repr(v) for v in s) + "}", a,
                                  "[]float64{" + ", ".join(repr(v) for v in obs(ns)) + "}",
                                  "true" if terminal(ns) else "false"))
# An episode of 30 steps from (0, 0, 0, 0) with torques +1, -1 alternating
# every 5 steps: the final observation and the step at which it first is
# terminal (0: never).
s = [0.0, 0.0, 0.0, 0.0]
first = 0
for h in range(30):
    a = 1.0 if (h // 5) % 2 == 0 else -1.0
    s = step(s, a)
    if first == 0 and terminal(s):
        first = h + 1
print("final", "[]float64{" + ", ".join(repr(v) for v in obs(s)) + "}", first)
