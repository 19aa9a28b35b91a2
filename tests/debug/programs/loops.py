"""Conditional, hit-count and log breakpoints in both worlds (tests/debug/test_dap_breakpoints.py)."""

import numpy as np
from numba import njit


@njit(debug=True)
def accumulate(a):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i]
    return total


def main():
    a = np.arange(10.0)
    results = []
    for k in range(5):
        results.append(accumulate(a) + k)
    print("results:", results)


if __name__ == "__main__":
    main()
