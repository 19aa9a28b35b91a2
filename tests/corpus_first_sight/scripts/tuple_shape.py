import numpy as np
from numba import njit


@njit
def make_grid(shape, fill):
    grid = np.empty(shape)
    grid[:] = fill
    return grid


@njit
def corner(grid, where):
    return grid[where[0], where[1]]


shape = (4, 5)
g = make_grid(shape, 2.5)
print(corner(g, (1, 2)))
