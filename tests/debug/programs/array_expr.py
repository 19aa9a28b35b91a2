"""Array expressions: Numba compiles `a * b + 1.0` into a generated `__numba_array_expr_…` kernel that its
debug info places in this file (tests/debug/test_dap_depth.py)."""

import numpy as np
from numba import njit


@njit(debug=True)
def scale_add(a, b):
    n = a.size
    c = a * b + 1.0
    total = c.sum() + n
    return total


@njit(parallel=True, debug=True)
def scale_add_parallel(a, b):
    n = a.size
    c = a * b + 1.0
    total = c.sum() + n
    return total


if __name__ == "__main__":
    size = 2000  # one kernel call per element: gdb alone needs a step per element to leave the line
    a = np.arange(float(size))
    b = np.full(size, 2.0)
    print("serial:", scale_add(a, b), flush=True)
    print("parallel:", scale_add_parallel(a, b), flush=True)
