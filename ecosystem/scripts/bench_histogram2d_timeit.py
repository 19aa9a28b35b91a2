#!/usr/bin/env python
"""Benchmark: a 2-D histogram, NumPy against Numba kernels (one loop; a row-wise kernel serial and parallel)."""

import timeit

import numpy as np
import numba
from numba import prange


@numba.jit(nopython=True, fastmath=True)
def histogram2d(x, y, bins, lo, hi):
    counts = np.zeros((bins, bins), dtype=np.int64)
    scale = bins / (hi - lo)
    for k in range(x.size):
        i = int((x[k] - lo) * scale)
        j = int((y[k] - lo) * scale)
        if 0 <= i < bins and 0 <= j < bins:
            counts[i, j] += 1
    return counts


def histogram2d_rows_py(x, y, bins, lo, hi):
    # one row of bins per iteration: no two iterations write the same bin
    counts = np.zeros((bins, bins), dtype=np.int64)
    scale = bins / (hi - lo)
    for i in prange(bins):
        for k in range(x.size):
            if int((x[k] - lo) * scale) == i:
                j = int((y[k] - lo) * scale)
                if 0 <= j < bins:
                    counts[i, j] += 1
    return counts


# The same row-wise kernel, compiled serially and in parallel, to see what the threads buy.
histogram2d_rows = numba.njit(histogram2d_rows_py)
histogram2d_rows_parallel = numba.njit(parallel=True)(histogram2d_rows_py)


def main():
    rng = np.random.default_rng(42)
    x = rng.random(20_000)
    y = rng.random(20_000)
    bins = 16
    reference, _, _ = np.histogram2d(x, y, bins=bins, range=[[0.0, 1.0], [0.0, 1.0]])
    assert (histogram2d(x, y, bins, 0.0, 1.0) == reference).all()
    assert (histogram2d_rows(x, y, bins, 0.0, 1.0) == reference).all()
    assert (histogram2d_rows_parallel(x, y, bins, 0.0, 1.0) == reference).all()
    for name, stmt in [
        ("numpy", lambda: np.histogram2d(x, y, bins=bins, range=[[0.0, 1.0], [0.0, 1.0]])),
        ("numba", lambda: histogram2d(x, y, bins, 0.0, 1.0)),
        ("numba rows", lambda: histogram2d_rows(x, y, bins, 0.0, 1.0)),
        ("numba rows parallel", lambda: histogram2d_rows_parallel(x, y, bins, 0.0, 1.0)),
    ]:
        best = min(timeit.repeat(stmt, number=5, repeat=3)) / 5
        print(f"{name:>20}: {best * 1e3:8.3f} ms")


if __name__ == "__main__":
    main()
