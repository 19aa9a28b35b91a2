"""Records passed as arguments: from a jitted caller (the default of `scale` omitted) and from Python.
With `serve`: calls the function now and then for a long time (attach by process id)."""

import sys
import time

import numpy as np
from numba import njit


@njit(debug=True)
def kinetic(p, scale=1.0):
    e = 0.5 * p.m * (p.vx * p.vx + p.vy * p.vy) * scale  # STOP
    return e


@njit(debug=True)
def total(particles):
    t = 0.0
    for i in range(particles.size):
        t += kinetic(particles[i])
    return t


def make_particles() -> np.ndarray:
    # Packed (not aligned): 4 + 8 + 8 + 4 = 24 bytes, a float32 last.
    dtype = np.dtype([("id", np.int32), ("m", np.float64), ("vx", np.float64), ("vy", np.float32)])
    particles = np.zeros(3, dtype=dtype)
    particles["id"] = [7, 3, 9]
    particles["m"] = [1.0, 2.0, 0.5]
    particles["vx"] = [1.5, -2.5, 4.0]
    particles["vy"] = [0.25, 1.0, -0.75]
    return particles


def main():
    particles = make_particles()
    if sys.argv[1:] == ["serve"]:
        print("ready", kinetic(particles[0]), flush=True)
        for _ in range(3000):
            kinetic(particles[1])
            time.sleep(0.02)
        return
    print(total(particles))
    print(kinetic(particles[2], 2.0))


if __name__ == "__main__":
    main()
