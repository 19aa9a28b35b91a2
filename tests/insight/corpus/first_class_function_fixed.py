import numpy as np
from numba import njit


@njit
def wave(n: int):
    return np.sin(1.0) if n > 0 else np.cos(1.0)
