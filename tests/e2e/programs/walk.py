"""A jitted loop called from Python: debugged as plain Python (mode python) and backwards (reverse)."""

import numpy as np
from numba import njit


@njit(debug=True)
def walk(a, n):
    total = 0.0
    for i in range(n):
        x = a[i]
        total += x * 2.0
    return total


def main():
    a = np.arange(1.0, 7.0)
    print("walk:", walk(a, 4))


if __name__ == "__main__":
    main()
