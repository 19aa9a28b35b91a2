"""One jitted function that types and one with a typing error (tests/editors/test_neovim.py)."""

import numpy as np
from numba import njit


@njit(debug=True)
def walk(a: "float64[:]", n: int) -> float:
    total = 0.0
    for i in range(n):
        x = a[i]
        total += x * 2.0
    return total


@njit("int64(int64)")
def add_tuple(x):
    return x + (1, 2)


def main():
    a = np.arange(1.0, 7.0)
    n = 4
    result = walk(a, n)
    print("walk:", result)


if __name__ == "__main__":
    main()
