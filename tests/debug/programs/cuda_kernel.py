"""A CUDA kernel debugged as Python through the CUDA simulator (mode cudasim)."""

import numpy as np
from numba import cuda


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


a = np.zeros(4)
add_one[1, 4](a)
print("cudasim:", a)
