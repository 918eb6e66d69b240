#!/usr/bin/python3
"""One refit at D features and 17 outputs in NumPy/SciPy: cho_factor and
cho_solve of the same matrix as internal/linalg's BenchmarkRefit (XᵀX/D + I,
X standard normal), all 17 right-hand sides in one call. Run with one
OpenBLAS thread (OPENBLAS_NUM_THREADS=1, as make bench-scale does).
Prints the wall and CPU time per refit, median of the repeats."""
import os
import sys
import time

import numpy as np
from scipy.linalg import cho_factor, cho_solve

d = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
rng = np.random.default_rng(7)
x = rng.standard_normal((d, d))
a = x.T @ x / d + np.eye(d)
rhs = rng.standard_normal((d, 17))
walls, cpus = [], []
for _ in range(reps):
    w0, c0 = time.perf_counter(), time.process_time()
    c = cho_factor(a, lower=False, check_finite=False)
    sol = cho_solve(c, rhs, check_finite=False)
    walls.append(time.perf_counter() - w0)
    cpus.append(time.process_time() - c0)
walls.sort()
cpus.sort()
print(f"numpy refit D={d} 17 rhs: wall {walls[len(walls)//2]*1e3:.1f} ms (min {walls[0]*1e3:.1f}), "
      f"cpu {cpus[len(cpus)//2]*1e3:.1f} ms (min {cpus[0]*1e3:.1f}); "
      f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
