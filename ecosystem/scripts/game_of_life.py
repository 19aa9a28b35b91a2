import numpy as np
from numba import njit


@njit
def life_step(grid):
    rows, cols = grid.shape
    new = np.zeros_like(grid)
    for r in range(rows):
        for c in range(cols):
            alive = 0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if dr == 0 and dc == 0:
                        continue
                    alive += grid[(r + dr) % rows, (c + dc) % cols]
            if grid[r, c] == 1 and (alive == 2 or alive == 3):
                new[r, c] = 1
            elif grid[r, c] == 0 and alive == 3:
                new[r, c] = 1
    return new


board = np.random.randint(0, 2, size=(32, 32)).astype(np.uint8)
for generation in range(10):
    board = life_step(board)
print(board.sum())
