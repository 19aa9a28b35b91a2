"""The maximum of an array with cuda.atomic.max."""

import numpy as np
from numba import cuda


@cuda.jit
def array_max(values, result):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.max(result, 0, values[i])


def main():
    values = np.arange(512, dtype=np.int64)
    result = np.zeros(1, dtype=np.int64)
    array_max[2, 256](values, result)
