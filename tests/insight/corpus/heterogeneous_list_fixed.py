from numba import njit


@njit
def labels(n: int):
    out = [1]
    out.append(2)
    return out
