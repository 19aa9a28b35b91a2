import numpy as np
from numba import njit


@njit
def matmul(a, b):
    n, m = a.shape
    p = b.shape[1]
    out = np.zeros((n, p))
    for i in range(n):
        for j in range(p):
            s = 0.0
            for k in range(m):
                s += a[i, k] * b[k, j]
            out[i, j] = s
    return out


A = np.random.rand(12, 12)
B = np.eye(12)
C = matmul(A, B)
print(np.allclose(A, C))
