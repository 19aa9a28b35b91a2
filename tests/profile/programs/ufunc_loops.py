"""A program for the profiler tests: a @vectorize ufunc and a @guvectorize gufunc called for a while.
Numba's loop wrapper of each inlines the function it loops over: their time is in that inlined code."""

import math
import sys
import time

import numpy as np
from numba import float64, guvectorize, vectorize


@vectorize([float64(float64)])
def wave(x):
    return math.cos(x) * math.sqrt(x + 1.0)  # VECTORIZE


@guvectorize([(float64[:], float64[:])], "(n)->(n)")
def smooth(a, out):
    for i in range(a.shape[0]):
        out[i] = math.cos(a[i]) + math.sin(a[i])  # GUVECTORIZE


def main(seconds: float) -> None:
    values = np.arange(1_000_000, dtype=np.float64)
    # Outputs made once: a new 8 MB array per call is NumPy's allocation under Numba's Python `__call__`.
    waved, smoothed = np.empty_like(values), np.empty_like(values)
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        wave(values, out=waved)
        smooth(values, smoothed)


if __name__ == "__main__":
    main(float(sys.argv[1]))
