"""Element-wise add, one thread per element."""

import numpy as np
from numba import cuda


@cuda.jit
def vector_add(a, b, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a[i] + b[i]


def main():
    a = np.arange(1024, dtype=np.float32)
    b = np.ones(1024, dtype=np.float32)
    out = cuda.device_array(1024, dtype=np.float32)
    vector_add[8, 128](cuda.to_device(a), cuda.to_device(b), out)
