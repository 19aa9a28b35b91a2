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
    total = out.sum()  # fid: break
    biggest = out.max()
    return total, biggest  # fid: break


def main():
    a = np.arange(6.0).reshape(3, 2)
    total, biggest = row_sums(a)
    print(total, biggest)  # fid: break


if __name__ == "__main__":
    main()
