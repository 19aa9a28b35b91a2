"""Bit operations and a compare-and-swap on int32 arrays."""

import numpy as np
from numba import cuda


@cuda.jit
def mark_once(flags, winners):
    i = cuda.grid(1)
    if i < winners.size:
        old = cuda.atomic.compare_and_swap(flags, 0, i + 1)
        winners[i] = (old == 0) | (i & 1) << 1


def main():
    flags = np.zeros(1, dtype=np.int32)
    winners = np.zeros(64, dtype=np.int32)
    mark_once[1, 64](flags, winners)
