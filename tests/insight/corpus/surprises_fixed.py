import numpy as np
from numba import njit

SCALE = 2.0


@njit
def describe(x: float, n: int):
    count = f"count {n}"
    return x, count


@njit
def negate(flag: bool):
    return not flag


@njit
def scaled(x: float, scale: float):
    return x * scale


@njit
def unset(flags, i):
    value = flags[i]
    # `~` of a NumPy bool is a logical not in Python too: nothing to warn of
    return ~flags[i], ~value, ~(flags[i] == flags[0]), ~np.any(flags)


unset(np.array([True, False]), 1)
