import numpy as np
from numba import njit

N = 64
C = -0.8 + 0.156j


@njit
def julia(grid, c, max_iter):
    out = np.empty(grid.shape, dtype=np.int64)
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            z = grid[i, j]
            k = 0
            while abs(z) < 2.0 and k < max_iter:
                z = z * z + c
                k += 1
            out[i, j] = k
    return out


xs = np.linspace(-1.5, 1.5, N)
grid = np.empty((N, N), dtype=complex)
for i in range(N):
    grid[i, :] = xs + 1j * xs[i]
print(julia(grid, C, 100).mean())
