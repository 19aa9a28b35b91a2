import numpy as np
from numba import njit


@njit
def life_step(grid):
    rows, cols = grid.shape
    out = np.zeros_like(grid)
    for r in range(rows):
        for c in range(cols):
            alive = 0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if dr == 0 and dc == 0:
                        continue
                    alive += grid[(r + dr) % rows, (c + dc) % cols]
            if grid[r, c] and (alive == 2 or alive == 3):
                out[r, c] = 1
            elif not grid[r, c] and alive == 3:
                out[r, c] = 1
    return out


def run(generations):
    grid = np.random.randint(0, 2, size=(24, 24)).astype(np.uint8)
    for _ in range(generations):
        grid = life_step(grid)
    return grid


if __name__ == "__main__":
    print(run(10).sum())
