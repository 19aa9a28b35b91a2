import numba
from numba import njit


@njit(numba.float64(numba.types.List(numba.float64, reflected=True)))
def total(xs):
    s = 0.0
    for x in xs:
        s += x
    return s
