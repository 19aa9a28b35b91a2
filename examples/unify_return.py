"""Return types that cannot be unified (troubleshooting guide, "My code has an untyped list problem" nearby)."""

from numba import njit


@njit
def choose(x: int):
    # One branch returns a tuple, the other an int: Numba cannot unify (int64, UniTuple(int64 x 2)).
    if x > 0:
        return (x, x)
    return 1
