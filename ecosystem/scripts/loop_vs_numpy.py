# Why is my loop slow? (StackOverflow-style comparison)
import timeit
import numpy as np
from numba import njit

def py_sum_sq(arr):
    s = 0
    for x in arr:
        s += x * x
    return s

@njit
def nb_sum_sq(arr):
    s = 0
    for x in arr:
        s += x * x
    return s

arr = np.arange(10000, dtype=np.int64)
print(timeit.timeit(lambda: py_sum_sq(arr), number=3))
print(timeit.timeit(lambda: nb_sum_sq(arr), number=3))
print(np.sum(arr * arr) == nb_sum_sq(arr))
