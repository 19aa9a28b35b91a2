"""Grid-wide synchronisation with cooperative groups (cuda.cg.this_grid)."""

import numpy as np
from numba import cuda


@cuda.jit
def two_phases(values, out):
    grid = cuda.cg.this_grid()
    i = cuda.grid(1)
    if i < values.size:
        values[i] += 1
    grid.sync()
    if i < out.size:
        out[i] = values[(i + 1) % values.size]


def main():
    values = np.zeros(256, dtype=np.int32)
    out = np.zeros(256, dtype=np.int32)
    two_phases[2, 128](values, out)
