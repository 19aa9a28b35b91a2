"""A one-thread kernel launched three times, through the CUDA simulator: no race between threads."""

import numpy as np
from numba import cuda


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


a = np.zeros(1)
for _ in range(3):
    add_one[1, 1](a)
print("cudasim:", a)
