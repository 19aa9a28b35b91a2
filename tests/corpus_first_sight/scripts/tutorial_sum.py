"""The first example of most tutorials: a loop that Numba makes fast."""

import numpy as np
from numba import njit


@njit
def sum_of_squares(values):
    total = 0.0
    for v in values:
        total += v * v
    return total


if __name__ == "__main__":
    data = np.arange(1000, dtype=np.float64)
    print(sum_of_squares(data))
