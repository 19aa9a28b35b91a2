import numpy as np
from numba import njit


@njit
def histogram(values, bins):
    counts = np.zeros(bins, dtype=np.int64)
    top = values.max() + 1
    for v in values:
        counts[v * bins // top] += 1
    return counts


if __name__ == "__main__":
    small = np.arange(100, dtype=np.int32)
    print(histogram(small, 10))
    print(histogram(np.arange(50).astype(np.uint16), 5))
