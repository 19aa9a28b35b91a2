"""A Python loop calling a jitted helper; the helper loops over a row of a 2D array."""

import numpy as np
from numba import njit


@njit(debug=True)
def row_stats(row, scale):
    lo = row[0]  # fid: out 1
    hi = row[0]
    acc = 0.0
    for v in row:  # fid: break
        if v < lo:
            lo = v  # fid: break
        if v > hi:
            hi = v
        acc += v * scale  # fid: next 6
    return lo, hi, acc


def main():
    m = np.array([[3.0, 1.0, 4.0], [1.0, 5.0, 9.0], [2.0, 6.0, 5.0]])
    out = []
    for r in range(m.shape[0]):
        lo, hi, acc = row_stats(m[r], 0.5)  # fid: break, in 3
        out.append(acc - lo + lo - hi + hi)
    print(out)


if __name__ == "__main__":
    main()
