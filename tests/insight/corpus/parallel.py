import numpy as np
from numba import float64, njit, prange


@njit(parallel=True)
def kernel(a: float64[:], b: float64[:, :]):
    c = a * 2.0 + 1.0
    d = np.sqrt(c)
    total = 0.0
    for i in prange(a.shape[0]):
        total += d[i]
    for i in prange(b.shape[0]):
        for j in prange(b.shape[1]):
            b[i, j] = i + j
    for k in range(3):
        total += k
    return total + np.sum(a)
