"""A while loop with break and continue, an accumulator updated on several paths."""

import numpy as np
from numba import njit


@njit(debug=True)
def scan(values, limit):
    total = 0.0
    i = 0
    skipped = 0
    while i < len(values):  # fid: break
        x = values[i]
        i += 1
        if x < 0:
            skipped += 1  # fid: break
            continue
        if total + x > limit:
            break
        total += x  # fid: break
    last = i  # fid: break
    return total, skipped, last


def main():
    values = np.array([1.5, -2.0, 2.5, 3.0, -1.0, 4.0, 10.0, 1.0])
    print(scan(values, 12.0))


if __name__ == "__main__":
    main()
