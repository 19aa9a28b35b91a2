"""numba-progress: a progress bar updated from inside a jitted loop."""

import numpy as np
from numba import njit
from numba_progress import ProgressBar


@njit(nogil=True)
def work(n, progress):
    total = 0.0
    for i in range(n):
        total += np.sqrt(i)
        progress.update(1)
    return total


with ProgressBar(total=1000, disable=True) as progress:
    work(1000, progress)
print("numba_progress ok")
