"""parallel=True on a function with nothing to parallelise: Numba warns at compile time."""

from numba import njit


@njit(parallel=True)
def serial_sum(n: int):
    total = 0
    for i in range(n):
        total += i
    return total
