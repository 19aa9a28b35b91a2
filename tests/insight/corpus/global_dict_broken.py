from numba import njit

LIMITS = {"low": 1, "high": 9}


@njit
def high(n: int):
    return LIMITS["high"] + n
