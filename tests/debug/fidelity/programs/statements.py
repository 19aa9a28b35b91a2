"""Lines holding several statements, and array expressions."""

import numpy as np
from numba import njit


@njit(debug=True)
def blend(a, b, w):
    s = 0.0; t = 1.0  # noqa: E702  # fmt: skip
    c = a * w + b * (1.0 - w)  # fid: break
    d = c - a  # fid: break
    for j in range(a.size):  # fid: break
        s += d[j]; t *= 1.0 + c[j] / 10.0  # noqa: E702  # fid: break  # fmt: skip
    m = (c > 1.0).sum()  # fid: break
    return s, t, m  # fid: break


def main():
    a = np.linspace(0.0, 2.0, 4)
    b = np.array([1.0, 0.5, 2.0, 3.0])
    print(blend(a, b, 0.25))


if __name__ == "__main__":
    main()
