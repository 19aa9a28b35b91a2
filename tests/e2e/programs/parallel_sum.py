"""A prange loop: Numba's worker threads run the body; a breakpoint there stops one of them."""

import numpy as np
from numba import njit, prange


@njit(parallel=True, debug=True)
def row_sums(grid):
    out = np.zeros(grid.shape[0])
    for r in prange(grid.shape[0]):
        row_total = 0.0
        for c in range(grid.shape[1]):
            row_total += grid[r, c]
        out[r] = row_total
    return out


if __name__ == "__main__":
    grid = np.arange(32.0).reshape(8, 4)
    print("sums:", row_sums(grid))
