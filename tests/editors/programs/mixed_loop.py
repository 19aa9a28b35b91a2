"""A jitted loop called from Python (tests/editors/test_neovim.py: nvim-dap's requests)."""

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
    n = 4
    result = walk(a, n)
    print("walk:", result)
    done = True
    return done


if __name__ == "__main__":
    main()
