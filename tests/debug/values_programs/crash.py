"""An out-of-bounds read with bounds checking off: SIGSEGV inside the jitted function (Numba's guide)."""

import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import write_expected


@njit(debug=True, boundscheck=False)
def fetch(a, index):
    scale = 2.0
    x = a[index] * scale  # CRASH
    return x


a = np.arange(10, dtype=np.float64)
write_expected({"index": 1000000000, "a": a.tolist()})
print(fetch(a, 1000000000))
