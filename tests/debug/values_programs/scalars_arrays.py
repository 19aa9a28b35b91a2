"""Scalars, bool, complex, 1-D and 2-D arrays, a tuple, a named tuple, a string, SSA versions."""

import sys
from collections import namedtuple
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import write_expected

Point = namedtuple("Point", ["x", "y"])


@njit(debug=True)
def kernel(a, n, flag, z, m):
    total = 0.0
    for i in range(n):
        total += a[i] * 2
    t = (n, total)
    p = Point(1.5, 2.5)
    s = "héllo"
    b = flag and n > 2
    c = z * 2
    row = m[1]
    total = total + 1.0  # STOP
    return total, t, p, s, b, c, row, m[2, 3]


a = np.arange(6, dtype=np.float64) * 0.5
m = np.arange(12, dtype=np.float64).reshape(3, 4) + 0.25
n = 4
total = float(sum(a[i] * 2 for i in range(n)))
write_expected({"a": a.tolist(), "m": m.tolist(), "n": n, "total": total, "z": [1.0, 2.0], "c": [2.0, 4.0]})
print(kernel(a, n, True, 1 + 2j, m))
