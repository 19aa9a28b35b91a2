"""Pairwise distances: the classic Python vs NumPy vs Numba benchmark."""
import numpy as np
from numba import double, jit

X = np.random.random((100, 3))


def pairwise_numpy(X):
    return np.sqrt(((X[:, None, :] - X) ** 2).sum(-1))


@jit(nopython=True, fastmath=True)
def pairwise_numba(X):
    M = X.shape[0]
    N = X.shape[1]
    D = np.empty((M, M), dtype=np.float64)
    for i in range(M):
        for j in range(M):
            d = 0.0
            for k in range(N):
                tmp = X[i, k] - X[j, k]
                d += tmp * tmp
            D[i, j] = np.sqrt(d)
    return D


assert np.allclose(pairwise_numba(X), pairwise_numpy(X))
print("max", pairwise_numba(X).max(), double)
