"""A jitted function called from another jitted function (no Python caller to recover arguments from)."""

import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import write_expected


@njit(debug=True)
def inner(v, k):
    r = v * k  # STOP
    return r + 1.0


@njit(debug=True)
def outer(a, n):
    s = 0.0
    for i in range(n):
        s += inner(a[i], n)
    return s


a = np.array([1.5, 2.5, 3.5])
write_expected({"v": 1.5, "k": 3})
print(outer(a, 3))
