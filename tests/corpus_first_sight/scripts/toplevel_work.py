"""A script that does its work at the top level, in a loop over sizes."""

import numpy as np
from numba import njit


@njit
def trapezoid(y, dx):
    total = 0.0
    for i in range(y.shape[0] - 1):
        total += 0.5 * (y[i] + y[i + 1]) * dx
    return total


for n in (10, 100, 1000):
    xs = np.linspace(0.0, np.pi, n)
    ys = np.sin(xs)
    print(n, trapezoid(ys, xs[1] - xs[0]))
