"""A nogil jitted function called from a Python worker thread: values of a frame outside thread 1."""

import sys
import threading
from pathlib import Path

from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import write_expected


@njit(debug=True, nogil=True)
def work(k, scale):
    s = k * scale
    return s + 1  # STOP


write_expected({"k": 21, "scale": 2.5, "s": 21 * 2.5})
worker = threading.Thread(target=work, args=(21, 2.5), name="numba-worker")
worker.start()
worker.join()
