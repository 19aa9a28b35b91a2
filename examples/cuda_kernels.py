"""CUDA kernels, typed without a GPU: hover a variable for its type; one deliberate mistake."""

import numpy as np
from numba import cuda


@cuda.jit(device=True)
def scaled(x, factor):
    return x * factor


@cuda.jit
def scale(values, factor, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = scaled(values[i], factor)


@cuda.jit
def add_one(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] + (1, 2)  # the mistake: a number plus a tuple


def main():
    a = np.arange(16.0)
    out = np.zeros_like(a)
    scale[1, 16](cuda.to_device(a), 2.0, out)
    add_one[1, 16](a, out)


if __name__ == "__main__":
    main()
