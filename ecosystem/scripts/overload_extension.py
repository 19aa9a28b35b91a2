import numpy as np
from numba import njit
from numba.extending import overload


def clip_scalar(x, lo, hi):
    return min(max(x, lo), hi)


@overload(clip_scalar)
def _clip_scalar_impl(x, lo, hi):
    def impl(x, lo, hi):
        if x < lo:
            return lo
        if x > hi:
            return hi
        return x
    return impl


@njit
def clip_all(values, lo, hi):
    out = np.empty_like(values)
    for i in range(values.size):
        out[i] = clip_scalar(values[i], lo, hi)
    return out


print(clip_all(np.linspace(-2, 2, 9), -1.0, 1.0))
