from numba import njit


@njit
def sign(x: float):
    if x > 0:
        return 1
    return "negative"
