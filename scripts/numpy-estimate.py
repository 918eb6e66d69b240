#!/usr/bin/python3
"""The work of `smrl estimate --se none` (and, with --se, of its sandwich
standard errors) on a Gaussian model of random Fourier features, in NumPy/SciPy:
the reference program of docs/performance.md ("estimate on 1024 features").

  n transitions of the 4-D linear system of scripts/scale-estimate.yaml
  (s' = A s + B a + 0.1 ε, s ~ Unif[-1, 1]^4, a ~ Unif[-1, 1]),
  features φ = sqrt(2/D) cos(Ω [s, a] + b) (D × 5 Gaussian Ω, uniform b),
  the Gram matrix G = ΦᵀΦ by one GEMM and Y = ΦᵀS',
  Ŵ = (G/σ⁴ + λI)⁻¹ (Y/σ⁴)ᵀ by cho_factor and cho_solve (all rows in one call);
  with --se the sandwich variances Σ_t r_tk² ((G/σ⁴ + λI)⁻¹ φ_t)_j² in chunks
  of 256 transitions.

Run with one OpenBLAS thread (OPENBLAS_NUM_THREADS=1), as make bench-scale
does. Prints the wall and CPU seconds and the peak resident memory.
"""
import argparse
import resource
import time

import numpy as np
from scipy.linalg import cho_factor, cho_solve

p = argparse.ArgumentParser()
p.add_argument("--n", type=int, default=20000)
p.add_argument("--dim", type=int, default=1024)
p.add_argument("--se", action="store_true")
args = p.parse_args()
n, d, sigma, lam = args.n, args.dim, 0.1, 1e-3
w0, c0 = time.perf_counter(), time.process_time()
rng = np.random.default_rng(1)
A = np.array([[0.9, 0.1, 0, 0], [0, 0.9, 0.1, 0], [0, 0, 0.9, 0.1], [0.1, 0, 0, 0.9]])
B = np.array([[0], [0], [0], [1.0]])
s = rng.uniform(-1, 1, (n, 4))
a = rng.uniform(-1, 1, (n, 1))
nxt = s @ A.T + a @ B.T + 0.1 * rng.standard_normal((n, 4))
omega = rng.standard_normal((5, d))
phase = rng.uniform(0, 2 * np.pi, d)
phi = np.sqrt(2.0 / d) * np.cos(np.hstack([s, a]) @ omega + phase)
c = 1 / sigma**4
gram = phi.T @ phi
y = phi.T @ nxt / sigma**2
fac = cho_factor(c * gram + lam * np.eye(d), lower=False, check_finite=False)
w = cho_solve(fac, y * (1 / sigma**2), check_finite=False).T  # 4 × d
if args.se:
    var = np.zeros((4, d))
    for t0 in range(0, n, 256):
        ph = phi[t0:t0 + 256]
        r = c * (ph @ w.T) - nxt[t0:t0 + 256] / sigma**2  # residual of the estimating equation
        x = cho_solve(fac, ph.T, check_finite=False)      # (G + λI)⁻¹ φ_t, d × m
        var += (r * r).T @ (x * x).T
wall, cpu = time.perf_counter() - w0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"numpy estimate n={n} D={d} se={args.se}: {wall:.2f} s wall, {cpu:.2f} s CPU, peak {peak:.0f} MB")
