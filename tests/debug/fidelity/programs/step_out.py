"""Step Out of jitted callees: to a jitted caller in the middle of a line of two statements, and to Python."""

import numpy as np
from numba import njit


@njit(debug=True)
def scale(v, f):
    w = v * f  # fid: out 1
    return w


@njit(debug=True)
def run(values, f):
    s = 0.0
    t = 1.0
    for j in range(values.size):
        s += values[j]; t *= scale(values[j], f)  # noqa: E702  # fmt: skip
    return s, t  # fid: out 1


def main():
    values = np.array([1.0, 2.0, 3.0])
    s, t = run(values, 0.5)
    print(s, t)


if __name__ == "__main__":
    main()
