from numba import njit

WEIGHTS = (1, 2, 3)


@njit
def weight(i: int):
    return WEIGHTS[i]
