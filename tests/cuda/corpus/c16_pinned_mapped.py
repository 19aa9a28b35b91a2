"""Pinned and mapped host arrays passed to a kernel."""

import numpy as np
from numba import cuda


@cuda.jit
def add_into(src, dst):
    i = cuda.grid(1)
    if i < dst.size:
        dst[i] += src[i]


def main():
    src = cuda.pinned_array(128, dtype=np.float32)
    dst = cuda.mapped_array(128, dtype=np.float32)
    add_into[1, 128](src, dst)
