"""A histogram with atomic adds."""

import numpy as np
from numba import cuda


@cuda.jit
def histogram(samples, bins, lo, width):
    i = cuda.grid(1)
    if i < samples.size:
        b = int((samples[i] - lo) / width)
        if 0 <= b < bins.size:
            cuda.atomic.add(bins, b, 1)


def main():
    samples = np.arange(1000.0)
    bins = np.zeros(10, dtype=np.int32)
    histogram[4, 256](samples, bins, 0.0, 100.0)
