import numpy as np
from numba import njit, prange


@njit(parallel=True)
def row_norms(m):
    out = np.empty(m.shape[0])
    for i in prange(m.shape[0]):
        acc = 0.0
        for j in range(m.shape[1]):
            acc += m[i, j] * m[i, j]
        out[i] = np.sqrt(acc)
    return out


@njit(parallel=True)
def total(v):
    s = 0.0
    for i in prange(v.shape[0]):
        s += v[i]
    return s


if __name__ == "__main__":
    M = np.random.random((200, 50))
    print(row_norms(M)[:3], total(M.ravel()))
