"""A loop with a branch: the stop line runs once per iteration; values change between stops."""

import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import write_expected


@njit(debug=True)
def running(a):
    total = 0.0
    best = -1.0
    for i in range(a.shape[0]):
        x = a[i] * 2.0
        if x > best:
            best = x
        total = total + x  # STOP
    return total, best


a = np.array([3.0, 1.0, 4.0, 1.5, 5.0])
doubled = a * 2.0
write_expected(
    {
        "iterations": [
            {
                "i": k,
                "x": float(doubled[k]),
                "best": float(doubled[: k + 1].max()),
                "total": float(doubled[:k].sum()),
            }
            for k in range(len(a))
        ]
    }
)
print(running(a))
