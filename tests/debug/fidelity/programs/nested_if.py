"""Nested loops with an if/elif/else in the inner loop (a Game-of-Life rule on a small grid)."""

import numpy as np
from numba import njit


@njit(debug=True)
def step(grid):
    rows, cols = grid.shape
    nxt = np.zeros_like(grid)
    alive = 0
    for r in range(1, rows - 1):  # fid: break
        for c in range(1, cols - 1):  # fid: break
            n = grid[r - 1, c] + grid[r + 1, c] + grid[r, c - 1] + grid[r, c + 1]
            if n == 2:  # fid: next 8
                nxt[r, c] = grid[r, c]  # fid: break
            elif n == 3:
                nxt[r, c] = 1  # fid: break
                alive += 1
            else:
                nxt[r, c] = 0  # fid: break
        alive += 0
    return nxt, alive


def main():
    grid = np.zeros((5, 5), dtype=np.int64)
    grid[1, 2] = grid[2, 2] = grid[3, 2] = grid[2, 1] = 1
    nxt, alive = step(grid)
    print("alive:", alive, int(nxt.sum()))


if __name__ == "__main__":
    main()
