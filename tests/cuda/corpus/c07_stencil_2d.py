"""A 2D five-point stencil on a 2D grid."""

import numpy as np
from numba import cuda


@cuda.jit
def smooth(grid, out):
    x, y = cuda.grid(2)
    if 0 < x < grid.shape[0] - 1 and 0 < y < grid.shape[1] - 1:
        out[x, y] = 0.2 * (grid[x, y] + grid[x - 1, y] + grid[x + 1, y] + grid[x, y - 1] + grid[x, y + 1])


def main():
    grid = np.ones((128, 128))
    out = np.zeros_like(grid)
    smooth[(8, 8), (16, 16)](grid, out)
