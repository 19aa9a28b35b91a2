import numpy as np
from numba import float64, njit


@njit
def sorted_copy(a: float64[:]):
    return np.sort(a, kind="mergesort")
