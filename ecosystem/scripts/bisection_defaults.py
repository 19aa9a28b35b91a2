import math

from numba import njit


@njit
def f(x):
    return math.cos(x) - x


@njit
def bisect(lo, hi, tol=1e-10, max_iter=200):
    flo = f(lo)
    for _ in range(max_iter):
        mid = 0.5 * (lo + hi)
        fm = f(mid)
        if abs(fm) < tol:
            return mid
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return 0.5 * (lo + hi)


print(bisect(0.0, 1.0))
print(bisect(0.0, 1.0, tol=1e-6))
