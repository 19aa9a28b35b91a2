"""An out-of-bounds read in jitted code (Numba's troubleshooting guide): SIGSEGV inside `fetch`."""

import numpy as np
from numba import njit


@njit(debug=True, boundscheck=False)
def fetch(a, index):
    scale = 2.0
    x = a[index] * scale
    return x


def main():
    a = np.arange(10, dtype=np.float64)
    print("fetched:", fetch(a, 1000000000))


if __name__ == "__main__":
    main()
