"""Monte Carlo pi with xoroshiro128p random states (numba.cuda.random)."""

import numpy as np
from numba import cuda
from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32


@cuda.jit
def estimate_pi(rng_states, iterations, out):
    thread_id = cuda.grid(1)
    inside = 0
    for _ in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, thread_id)
        y = xoroshiro128p_uniform_float32(rng_states, thread_id)
        if x * x + y * y <= 1.0:
            inside += 1
    out[thread_id] = 4.0 * inside / iterations


def main():
    threads = 64 * 64
    rng_states = create_xoroshiro128p_states(threads, seed=1)
    out = np.zeros(threads, dtype=np.float32)
    estimate_pi[64, 64](rng_states, 1000, out)
