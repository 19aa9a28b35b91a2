"""Profile demo: where does the time go? Click "Profile" above (Numba Lens) and see it line by line."""

import math

from numba import njit


@njit
def smooth(values, width):
    out = values.copy()
    for i in range(width, len(values) - width):
        total = 0.0
        for k in range(-width, width + 1):
            total += values[i + k]  # the hot line: (2 * width + 1) reads per point
        out[i] = total / (2 * width + 1)
    return out


@njit
def energy(values):
    e = 0.0
    for v in values:
        e += math.sin(v) ** 2
    return e


def main():
    import numpy as np

    values = np.random.default_rng(0).random(200_000)
    for _ in range(200):
        values = smooth(values, 20)
        e = energy(values)
    print(f"energy {e:.3f}")


if __name__ == "__main__":
    main()
