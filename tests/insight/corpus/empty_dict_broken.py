from numba import njit


@njit
def empty(n: int):
    d = {}
    return len(d) + n
