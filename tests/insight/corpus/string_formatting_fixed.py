from numba import njit


@njit
def label(x: float):
    return "value " + str(int(x))
