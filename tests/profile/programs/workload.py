"""A program for the profiler tests: a jitted hot loop called from Python callers, a prange loop and a
second Python thread running a nogil jitted function. Prints its pid first (the no-orphans check)."""

import math
import os
import sys
import threading

from numba import njit, prange

print(os.getpid(), flush=True)


@njit
def hot(n):
    s = 0.0
    for i in range(n):
        s += math.sin(i * 0.001)  # HOT
    return s


@njit(parallel=True)
def spread(n):
    s = 0.0
    for i in prange(n):
        s += math.sqrt(i) * math.cos(i)  # PRANGE
    return s


@njit(nogil=True)
def background(n):
    x = 1
    for i in range(n):
        x = (x * 1103515245 + 12345 + i) % 2147483647  # BACKGROUND
    return x


def python_caller(n):
    return hot(n)  # CALLER


def main(seconds):
    hot(10)
    background(10)
    spread(10)
    worker = threading.Thread(target=background, args=(60_000_000,), name="background-worker")
    worker.start()
    import time

    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        python_caller(2_000_000)
    for _ in range(10):
        spread(2_000_000)
    worker.join()
    if len(sys.argv) > 2 and sys.argv[2] == "crash":
        os.abort()


main(float(sys.argv[1]))
