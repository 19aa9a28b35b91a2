import numpy as np
from numba import cuda


@cuda.jit
def halve(values, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = values[i] * 0.5


def main():
    values = np.ones(32, dtype=np.float32)
    out = np.zeros(32, dtype=np.float32)
    halve[1, 32](values, out)
    halve[1, 32](values)
