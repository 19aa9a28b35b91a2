import numpy as np
from numba import njit


@njit(cache=True)
def matmul(a, b):
    n, k = a.shape
    m = b.shape[1]
    c = np.zeros((n, m), dtype=a.dtype)
    for i in range(n):
        for p in range(k):
            aip = a[i, p]
            for j in range(m):
                c[i, j] += aip * b[p, j]
    return c


A = np.random.rand(40, 30).astype(np.float32)
B = np.random.rand(30, 20).astype(np.float32)
np.testing.assert_allclose(matmul(A, B), A @ B, rtol=1e-4)
print("ok")
