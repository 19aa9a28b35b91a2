"""numba.gdb_init(), numba.gdb_breakpoint() and numba.gdb() in jitted code (tests/debug/test_dap_depth.py)."""

import numba
import numpy as np
from numba import njit


@njit(debug=True)
def scaled(a, factor):
    numba.gdb_init()
    total = 0.0
    for i in range(a.size):
        total += a[i] * factor
    numba.gdb_breakpoint()
    doubled = total * 2.0
    numba.gdb()
    return doubled + 1.0


if __name__ == "__main__":
    print("scaled:", scaled(np.arange(4.0), 3.0), flush=True)
