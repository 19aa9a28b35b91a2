"""Device functions called from a kernel: typed from the kernel's calls."""

import math

import numpy as np
from numba import cuda


@cuda.jit(device=True)
def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


@cuda.jit(device=True)
def norm2(x, y):
    return math.sqrt(x * x + y * y)


@cuda.jit
def magnitudes(xs, ys, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = clamp(norm2(xs[i], ys[i]), 0.0, 10.0)


def main():
    xs = np.arange(256.0)
    ys = np.arange(256.0)
    out = np.empty(256)
    magnitudes[2, 128](xs, ys, out)
