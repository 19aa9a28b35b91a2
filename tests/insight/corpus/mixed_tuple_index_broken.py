from numba import njit


@njit
def items(n: int):
    t = (1, 2.5, 3)
    total = 0.0
    for i in range(3):
        total += t[i]
    return total
