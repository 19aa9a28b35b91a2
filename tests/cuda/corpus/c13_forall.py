"""kernel.forall(n): Numba picks the launch configuration."""

import numpy as np
from numba import cuda


@cuda.jit
def square(values):
    i = cuda.grid(1)
    if i < values.size:
        values[i] = values[i] * values[i]


def main():
    values = np.arange(500, dtype=np.float64)
    square.forall(values.size)(values)
