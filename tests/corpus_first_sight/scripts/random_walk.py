import numpy as np
from numba import njit


@njit
def walk(steps, seed):
    np.random.seed(seed)
    position = 0
    path = np.empty(steps, dtype=np.int64)
    for i in range(steps):
        position += 1 if np.random.random() < 0.5 else -1
        path[i] = position
    return path


def experiment(trials=3, steps=100):
    ends = []
    for t in range(trials):
        ends.append(walk(steps, t)[-1])
    return ends


print(experiment())
