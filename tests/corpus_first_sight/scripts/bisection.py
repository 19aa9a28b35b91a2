import math

from numba import njit


@njit
def f(x):
    return x * x - 2.0


@njit
def bisect(lo, hi, tol):
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if f(lo) * f(mid) <= 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


root = bisect(0.0, 2.0, 1e-10)
print(root, math.sqrt(2.0))
