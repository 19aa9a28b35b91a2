"""Benchmark a kernel over a few sizes, with a top-level loop (no main)."""
import time
import numpy as np
import numba


@numba.njit
def saxpy(a, x, y):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = a * x[i] + y[i]
    return out


timings = {}
for n in [1_000, 10_000, 100_000]:
    xs = np.random.rand(n)
    ys = np.random.rand(n)
    saxpy(2.0, xs, ys)  # warm up
    t0 = time.perf_counter()
    for _ in range(5):
        saxpy(2.0, xs, ys)
    timings[n] = (time.perf_counter() - t0) / 5

for n, t in timings.items():
    print(f"n={n:>7}: {t * 1e6:8.1f} us")
