"""Game of Life: one generation on a small torus, neighbours counted with offsets and `continue`."""

import numpy as np
from numba import njit


@njit(debug=True)
def generation(grid):
    rows, cols = grid.shape
    out = np.zeros_like(grid)
    for r in range(rows):
        for c in range(cols):
            alive = 0
            for dr in range(-1, 2):
                for dc in range(-1, 2):
                    if dr == 0 and dc == 0:
                        continue
                    alive += grid[(r + dr) % rows, (c + dc) % cols]  # fid: break
            if grid[r, c] == 1 and (alive == 2 or alive == 3):  # fid: break
                out[r, c] = 1
            elif grid[r, c] == 0 and alive == 3:
                out[r, c] = 1
    return out


def main():
    grid = np.array([[0, 1, 0], [0, 1, 0], [0, 1, 1]], dtype=np.int64)
    nxt = generation(grid)
    print(nxt)  # fid: break


if __name__ == "__main__":
    main()
