import time

import numpy as np
from numba import njit, objmode


@njit
def slow_sum(values, report_every):
    total = 0.0
    last = 0.0
    for i in range(values.size):
        total += values[i]
        if i % report_every == 0:
            with objmode(last="float64"):
                last = time.perf_counter()
    return total, last


print(slow_sum(np.ones(1000), 250))
