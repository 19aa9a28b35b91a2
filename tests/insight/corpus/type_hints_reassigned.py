from numba import njit


@njit
def reassigned(n: int):
    x = 1
    y = x + n
    x = 2.5  # a new value of another type, not merged with the int: no type-promotion hint
    return y, x
