import numpy as np
from numba import njit


@njit
def walk(rng, steps):
    position = 0.0
    path = np.empty(steps)
    for t in range(steps):
        position += rng.normal()
        path[t] = position
    return path


@njit
def max_excursion(path):
    return np.max(np.abs(path))


rng = np.random.default_rng(2024)
trajectory = walk(rng, 1000)
print(max_excursion(trajectory))
