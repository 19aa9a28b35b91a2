import numpy as np
from numba import cuda


@cuda.jit
def total(values, out):
    i = cuda.grid(1)
    out[i] = values[i]
    return values[i] * 2


def main():
    values = np.ones(32)
    out = np.zeros(32)
    total[1, 32](values, out)
