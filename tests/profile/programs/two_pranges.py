"""A program for the profiler tests: two prange loops of the same body, one given three times the
iterations of the other, called in turn for a while. Prints the time each took in all (its own timing,
the truth the profile's counts are checked against), the threading layer and the number of threads."""

import json
import math
import sys
import time

from numba import get_num_threads, njit, prange, threading_layer


@njit(parallel=True)
def heavy(n):
    s = 0.0
    for i in prange(n):
        s += math.sqrt(i + 1.0) * math.cos(i)  # HEAVY
    return s


@njit(parallel=True)
def light(n):
    s = 0.0
    for i in prange(n):
        s += math.sqrt(i + 1.0) * math.cos(i)  # LIGHT
    return s


def main(seconds: float, n: int) -> None:
    heavy(10)
    light(10)
    spent = {"heavy_s": 0.0, "light_s": 0.0}
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        before = time.perf_counter()
        heavy(3 * n)
        middle = time.perf_counter()
        light(n)
        spent["heavy_s"] += middle - before
        spent["light_s"] += time.perf_counter() - middle
    print(json.dumps({**spent, "layer": threading_layer(), "threads": get_num_threads()}))


main(float(sys.argv[1]), int(sys.argv[2]))
