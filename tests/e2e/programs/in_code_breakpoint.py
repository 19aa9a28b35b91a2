"""numba.gdb_breakpoint() in jitted code: the session stops at this line, not inside Numba's helper."""

import numba
import numpy as np
from numba import njit


@njit(debug=True)
def scaled(a, factor):
    total = 0.0
    for i in range(a.size):
        total += a[i] * factor
    numba.gdb_breakpoint()
    doubled = total * 2.0
    return doubled + 1.0


if __name__ == "__main__":
    print("scaled:", scaled(np.arange(4.0), 3.0))
