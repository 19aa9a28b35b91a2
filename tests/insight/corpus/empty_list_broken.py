from numba import njit


@njit
def empty(n: int):
    tmp = []
    return (tmp, n)
