"""A configured kernel kept in a variable, and a launch with a stream and dynamic shared memory."""

import numpy as np
from numba import cuda


@cuda.jit
def fill(out, value):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = value


def main():
    out = np.zeros(64, dtype=np.int64)
    configured = fill[1, 64]
    configured(out, 7)
    stream = cuda.stream()
    # A launch on a stream takes device memory: newer numba-cuda refuses a host array there.
    fill[1, 64, stream, 0](cuda.to_device(out, stream=stream), 8)
    stream.synchronize()
