from numba import float64, njit


@njit
def as_list(a: float64[:]):
    return [v for v in a]
