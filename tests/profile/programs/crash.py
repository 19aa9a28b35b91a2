"""Runs a jitted loop from a Python caller for a while, then dies of SIGSEGV (a NULL read via ctypes)."""

import ctypes
import math
import os
import sys

from numba import njit

print(os.getpid(), flush=True)


@njit
def spin(n):
    s = 0.0
    for i in range(n):
        s += math.sin(i * 0.001)  # SPIN
    return s


def caller(rounds):
    total = 0.0
    for _ in range(rounds):
        total += spin(2_000_000)  # CALL
    return total


caller(int(sys.argv[1]))
sys.stdout.flush()
ctypes.string_at(0)  # SIGSEGV
