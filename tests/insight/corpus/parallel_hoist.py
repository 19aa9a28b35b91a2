import numpy as np
from numba import float64, int64, njit, prange


@njit(parallel=True)
def rows(a: float64[:, :], sizes: int64[:]):
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        tmp = np.empty(a.shape[1])
        grow = np.empty(sizes[i])
        for j in range(a.shape[1]):
            tmp[j] = a[i, j] * 2.0
        out[i] = tmp[0] + grow.size
    return out
