"""A CUDA kernel run by a pytest test in the simulator (mode cudasim, launched as `-m pytest this_file`)."""

import numpy as np
from numba import cuda


@cuda.jit
def double_it(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] *= 2


def test_double_it():
    a = np.ones(4)
    double_it[1, 4](a)
    assert (a == 2).all()
