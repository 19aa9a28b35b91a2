import numpy as np
from numba import njit


@njit
def wave(n: int):
    f = np.sin if n > 0 else np.cos
    return f(1.0)
