from numba import njit


@njit
def label(x: float):
    return "value %d" % x  # noqa: UP031 (the error this file shows)
