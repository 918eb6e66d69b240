#!/usr/bin/env python3
"""One pendulum MPPI decision under an RFF Gaussian-mean model, in NumPy.

The side-by-side reference for smrl's BenchmarkDecision/pendulum/mppi/sm
(internal/runner/planner_bench_test.go): the same arithmetic as smrl's
decision with configs/pendulum.yaml, vectorised over the K sequences the
way a NumPy user would write it.

  K = 32 sequences (the first unperturbed), L = tau - 1 = 15 torques each,
  perturbations N(0, (noise_std * 2)^2) clipped to [-2, 2];
  per step: r -= theta^2 + 0.1 thetadot^2 + 0.001 a^2 (theta = atan2(sin, cos)),
  z = (s, a) / (1, 1, 8, 2) / length, phi = sqrt(2/D) cos(z Omega^T + b) (D = 200),
  s += phi W^T (model.target: delta, planner.rollout: mean);
  MPPI weights exp((R - max R) / 0.3), the new mean sequence clipped to the box.

W, Omega and b are drawn at random with the fitted model's shapes (3 x 200,
200 x 4, 200); the cost of a decision does not depend on their values.
Prints the median, over --repeats batches, of the wall time per decision.

    python3 scripts/numpy-pendulum-decision.py [--decisions 2000] [--repeats 5]
"""
import argparse
import sys
import time

try:
    import numpy as np
except ImportError:
    sys.exit("numpy-pendulum-decision.py needs NumPy (Debian: apt-get install python3-numpy)")


def positive(text):
    """An argparse type: an integer >= 1."""
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", type=positive, default=2000, help="decisions per batch")
    ap.add_argument("--repeats", type=positive, default=5, help="batches; the median is printed")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    K, L, D, ds = 32, 15, 200, 3
    lo, hi, std, lam, length = -2.0, 2.0, 2.0, 0.3, 1.0
    rng = np.random.default_rng(args.seed)
    omega_t = (rng.standard_normal((D, ds + 1)) / length).T.copy()  # 4 x D
    b = rng.uniform(0, 2 * np.pi, D)
    w_t = (0.01 * rng.standard_normal((ds, D))).T.copy()  # D x 3
    inv_scale = 1.0 / np.array([1.0, 1.0, 8.0, 2.0])
    c = np.sqrt(2.0 / D)

    def decide(s, u):
        eps = rng.standard_normal((K, L)) * std
        eps[0] = 0.0
        U = np.clip(u[None, :] + eps, lo, hi)
        S = np.tile(s, (K, 1))
        R = np.zeros(K)
        Z = np.empty((K, ds + 1))
        for t in range(L):
            a = U[:, t]
            th = np.arctan2(S[:, 1], S[:, 0])
            R -= th * th + 0.1 * S[:, 2] * S[:, 2] + 0.001 * a * a
            Z[:, :ds] = S
            Z[:, ds] = a
            Z *= inv_scale
            phi = np.cos(Z @ omega_t + b)
            phi *= c
            S = S + phi @ w_t
        w = np.exp((R - R.max()) / lam)
        mean = np.clip((w @ U) / w.sum(), lo, hi)
        return mean[0], np.append(mean[1:], mean[-1])  # act, warm start

    per = []
    for _ in range(args.repeats):
        th0 = rng.uniform(-np.pi, np.pi)
        s = np.array([np.cos(th0), np.sin(th0), rng.uniform(-1, 1)])
        u = np.zeros(L)
        t0 = time.perf_counter()
        for _ in range(args.decisions):
            a, u = decide(s, u)
            s = np.array([np.cos(th0 + 0.05 * a), np.sin(th0 + 0.05 * a), s[2]])
        per.append((time.perf_counter() - t0) / args.decisions)
    per.sort()
    print(f"numpy {np.__version__}: {per[len(per) // 2] * 1e6:.0f} us per decision "
          f"(median of {args.repeats} batches of {args.decisions}; range {per[0] * 1e6:.0f}-{per[-1] * 1e6:.0f})")


if __name__ == "__main__":
    main()
