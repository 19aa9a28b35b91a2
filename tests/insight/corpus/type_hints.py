from numba import float64, njit


@njit
def accumulate(a: float64[:]):
    total = 0  # type-promotion: an int that becomes float64
    for i in range(a.shape[0]):
        total += a[i]  # type-layout: an 'A' array indexed in a loop
    found = None
    if total > 1.0:
        found = 3
    return total, found  # type-optional


@njit
def contiguous(a: float64[::1]):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i]
    return total
