"""Heat diffusion: a 5-point stencil over a small grid, two buffers swapped each step."""

import numpy as np
from numba import njit


@njit(debug=True)
def diffuse(a, steps, alpha):
    ny = a.shape[0]
    nx = a.shape[1]  # fid: next 8
    b = a.copy()
    for _step in range(steps):
        for i in range(1, ny - 1):
            for j in range(1, nx - 1):
                lap = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - 4.0 * a[i, j]
                b[i, j] = a[i, j] + alpha * lap  # fid: break
        a, b = b, a
    return a


def main():
    grid = np.zeros((4, 4))
    grid[1, 1] = 8.0
    grid[2, 2] = 4.0
    out = diffuse(grid, 2, 0.1)
    print(out.sum())  # fid: break


if __name__ == "__main__":
    main()
