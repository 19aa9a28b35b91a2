import numpy as np
from numba import njit


@njit
def decay(t, y):
    return -0.5 * y


@njit
def rk4(f, y0, t0, t1, steps):
    h = (t1 - t0) / steps
    y = y0
    t = t0
    for _ in range(steps):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h * k1 / 2)
        k3 = f(t + h / 2, y + h * k2 / 2)
        k4 = f(t + h, y + h * k3)
        y = y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
        t += h
    return y


print(rk4(decay, 1.0, 0.0, 2.0, 100), np.exp(-1.0))
