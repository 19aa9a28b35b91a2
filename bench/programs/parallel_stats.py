"""A user-style program with a `parallel=True` kernel: rolling statistics of a synthetic signal.

Three jitted functions (one parallel) and a ~2 s run on 2 cores; the profiler's whole-run benchmark
times it alone and under the profiler.
"""

import sys

import numpy as np
from numba import njit, prange


@njit
def smooth(signal, width):
    out = np.empty_like(signal)
    total = 0.0
    for i in range(signal.shape[0]):
        total += signal[i]
        if i >= width:
            total -= signal[i - width]
        out[i] = total / min(i + 1, width)
    return out


@njit(parallel=True)
def band_energy(signal, bands):
    size = signal.shape[0] // bands
    energy = np.zeros(bands)
    for b in prange(bands):
        acc = 0.0
        for i in range(b * size, (b + 1) * size):
            acc += np.sin(signal[i]) ** 2 + np.cos(signal[i] * 0.5) ** 2
        energy[b] = acc / size
    return energy


@njit
def peaks(values, threshold):
    found = []
    for i in range(1, values.shape[0] - 1):
        if values[i] > threshold and values[i] >= values[i - 1] and values[i] >= values[i + 1]:
            found.append(i)
    return found


def main(rounds: int) -> None:
    rng = np.random.default_rng(7)
    signal = rng.standard_normal(2_000_000).cumsum()
    total = 0.0
    for _ in range(rounds):
        smoothed = smooth(signal, 64)
        energy = band_energy(smoothed, 256)
        total += len(peaks(energy, energy.mean()))
    print("peaks:", total)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 12)
