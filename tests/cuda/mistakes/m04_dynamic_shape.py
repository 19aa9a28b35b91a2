import numpy as np
from numba import cuda, float64


@cuda.jit
def windowed(values, width, out):
    i = cuda.grid(1)
    scratch = cuda.local.array(width, float64)
    scratch[0] = values[i]
    out[i] = scratch[0]


def main():
    values = np.ones(32)
    out = np.zeros(32)
    windowed[1, 32](values, 4, out)
