"""A block-level sum reduction in shared memory, one partial sum per block."""

import numpy as np
from numba import cuda, float64

THREADS = 128


@cuda.jit
def block_sum(values, partial):
    cache = cuda.shared.array(THREADS, dtype=float64)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    cache[tid] = values[i] if i < values.size else 0.0
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if tid < step:
            cache[tid] += cache[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = cache[0]


def main():
    values = np.arange(4096.0)
    partial = cuda.device_array(32, dtype=np.float64)
    block_sum[32, THREADS](values, partial)
