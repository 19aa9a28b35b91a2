"""A per-thread scratch array (cuda.local.array) for a small sort."""

import numpy as np
from numba import cuda, int32


@cuda.jit
def sort_rows(rows, out):
    r = cuda.grid(1)
    if r < rows.shape[0]:
        scratch = cuda.local.array(8, int32)
        for j in range(8):
            scratch[j] = rows[r, j]
        for a in range(8):
            for b in range(7 - a):
                if scratch[b] > scratch[b + 1]:
                    scratch[b], scratch[b + 1] = scratch[b + 1], scratch[b]
        for j in range(8):
            out[r, j] = scratch[j]


def main():
    rows = np.zeros((100, 8), dtype=np.int32)
    out = np.zeros_like(rows)
    sort_rows[1, 128](rows, out)
