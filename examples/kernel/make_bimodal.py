"""Writes bimodal-train.csv and bimodal-test.csv, transitions of the bimodal
law of docs/kernel-families.md: s ~ U(-2, 2), a = ±1 (no effect),
s' | s ~ pi(s) N(s/2 - 1, 0.35^2) + (1 - pi(s)) N(s/2 + 1, 0.35^2),
pi(s) = 1/(1 + exp(-2 s)). Seeded: the files are reproducible."""
import math
import random


def write(path, n, seed):
    rng = random.Random(seed)
    with open(path, "w") as f:
        f.write("s,a,s_next\n")
        for _ in range(n):
            s = rng.uniform(-2, 2)
            a = rng.choice((-1, 1))
            mu = s / 2 - 1 if rng.random() < 1 / (1 + math.exp(-2 * s)) else s / 2 + 1
            f.write("%r,%d,%r\n" % (s, a, mu + 0.35 * rng.gauss(0, 1)))


write("bimodal-train.csv", 1000, 36)
write("bimodal-test.csv", 1000, 37)
