"""float32 arithmetic kept in float32 with np.float32 constants and math functions."""

import math

import numpy as np
from numba import cuda


@cuda.jit
def saxpy(alpha, xs, ys, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = alpha * xs[i] + ys[i] * np.float32(0.5) + math.exp(xs[i])


def main():
    xs = np.ones(1000, dtype=np.float32)
    ys = np.ones(1000, dtype=np.float32)
    out = cuda.device_array_like(xs)
    saxpy[4, 256](np.float32(2.0), xs, ys, out)
