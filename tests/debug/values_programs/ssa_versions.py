"""SSA versions: a re-assigned variable, a re-assigned argument, a loop accumulator."""

import sys
from pathlib import Path

from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import write_expected


@njit(debug=True)
def versions(n):
    x = 5
    y = x + n
    x = y * 3
    n = n + 1
    w = y + n  # STOP-A
    acc = 0
    for i in range(n):
        acc += i * 2
    x = acc + w  # STOP-B
    return x, w


n = 4
write_expected(
    {"A": {"x": (5 + n) * 3, "y": 5 + n, "n": n + 1}, "B": {"acc": sum(i * 2 for i in range(n + 1))}}
)
print(versions(n))
