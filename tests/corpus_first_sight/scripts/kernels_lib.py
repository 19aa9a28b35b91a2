"""A small library module: its jitted functions are called by app_main.py and test_kernels_lib.py."""

import numpy as np
from numba import njit


@njit
def moving_average(x, window):
    out = np.empty(x.shape[0] - window + 1)
    acc = 0.0
    for i in range(window):
        acc += x[i]
    out[0] = acc / window
    for i in range(window, x.shape[0]):
        acc += x[i] - x[i - window]
        out[i - window + 1] = acc / window
    return out


@njit
def clip_inplace(x, low, high):
    for i in range(x.shape[0]):
        if x[i] < low:
            x[i] = low
        elif x[i] > high:
            x[i] = high


@njit
def dot(a, b):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total
