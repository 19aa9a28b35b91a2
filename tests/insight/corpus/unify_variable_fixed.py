from numba import njit


@njit
def pick(n: int):
    if n > 0:
        x = 1
    else:
        x = 0
    return x
