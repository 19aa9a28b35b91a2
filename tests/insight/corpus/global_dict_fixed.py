from numba import njit

LOW, HIGH = 1, 9


@njit
def high(n: int):
    return HIGH + n
