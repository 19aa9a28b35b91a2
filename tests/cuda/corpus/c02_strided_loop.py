"""A grid-stride loop: any grid size covers any array size."""

import numpy as np
from numba import cuda


@cuda.jit
def scale(values, factor, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, values.shape[0], stride):
        out[i] = values[i] * factor


def main():
    values = np.arange(10000.0)
    out = np.zeros_like(values)
    scale[32, 256](values, 2.5, out)
