import math

import numpy as np
from numba import vectorize


@vectorize(["float64(float64, float64)", "float32(float32, float32)"])
def rel_diff(x, y):
    return 2 * (x - y) / (x + y)


@vectorize
def gauss(x, mu, sigma):
    return math.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))


a = np.arange(1.0, 11.0)
b = a[::-1].copy()
print(rel_diff(a, b))
print(gauss(np.linspace(-1, 1, 5), 0.0, 1.0))
