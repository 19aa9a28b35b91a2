import numpy as np
from numba import njit


@njit
def ranks(order):
    out = np.empty_like(order)
    for position, value in enumerate(order):
        out[value] = position
    return out


n = 10
order = np.array(list(reversed(range(n))), dtype=np.int64)
print(ranks(order))
