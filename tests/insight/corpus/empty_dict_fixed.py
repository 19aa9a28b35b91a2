import numba
from numba import njit


@njit
def empty(n: int):
    d = numba.typed.Dict.empty(key_type=numba.types.unicode_type, value_type=numba.float64)
    return len(d) + n
