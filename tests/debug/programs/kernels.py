"""A clean file: kernels that type-check, and a __main__ block that runs them.

Debug it with the "Debug JIT function" code lens above `walk`, or with the launch configuration
"Numba: debug kernels.py".
"""

import numpy as np
from numba import njit


@njit(debug=True)
def walk(a, n):
    total = 0.0
    for i in range(n):
        x = a[i]
        total += x * 2.0
    return total


@njit(debug=True)
def normalise(a):
    s = a.sum()
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] / s
    return out


@njit(debug=True)
def stats(a):
    lo = a.min()
    hi = a.max()
    return (lo, hi), walk(a, a.shape[0])


def main() -> None:
    a = np.arange(1.0, 7.0)
    n = 4
    result = walk(a, n)
    print("walk:", result)
    print("normalise:", normalise(a))
    print("stats:", stats(a))


if __name__ == "__main__":
    main()
