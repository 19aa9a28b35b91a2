from numba import float64, njit


def helper(x):
    return x + 1.0


@njit
def first_plus_one(a: float64[:]):
    return helper(a[0])
