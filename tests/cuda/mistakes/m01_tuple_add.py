import numpy as np
from numba import cuda


@cuda.jit
def add_one(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] + (1, 2)


def main():
    a = np.arange(16.0)
    out = np.zeros_like(a)
    add_one[1, 16](a, out)
