"""A `parallel=True` function: a prange over rows, then serial code after the parallel loop."""

import numpy as np
from numba import njit, prange


@njit(debug=True, parallel=True)
def row_sums(a):
    n = a.shape[0]
    out = np.zeros(n)
    for i in prange(n):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s
    # An array reduction here (`out.sum()`) would become a parallel loop of its own, with no code of
    # row_sums on its line to stop at: the serial code after the prange is a plain loop.
    total = 0.0
    for k in range(n):
        total += out[k]  # fid: break
    return total, out[n - 1]  # fid: break


def main():
    a = np.arange(6.0).reshape(3, 2)
    total, last = row_sums(a)
    print(total, last)  # fid: break


if __name__ == "__main__":
    main()
