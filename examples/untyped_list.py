"""An empty list Numba cannot type, and the typed-empty-list idiom that fixes it."""

import numpy as np
from numba import njit


@njit
def collect_untyped(n: int):
    values = []  # untyped: Numba cannot infer the element type of an empty list
    return len(values) + n


@njit
def collect_typed(n: int):
    # The idiom from Numba's guide: a comprehension over an empty range fixes the element type.
    values = [np.float64(x) for x in range(0)]
    for i in range(n):
        values.append(i * 0.5)
    return values
