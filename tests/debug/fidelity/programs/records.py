"""Record scalars taken from a record array, by index and by iteration, read by attribute and by key."""

import numpy as np
from numba import njit


@njit(debug=True)
def energy(particles, mass):
    total = 0.0
    fastest = 0
    for i in range(particles.size):
        p = particles[i]  # fid: next 4
        e = 0.5 * mass * (p["vx"] * p["vx"] + p["vy"] * p["vy"])  # fid: break
        if e > total:
            fastest = p["id"]  # fid: break
        total += e
    moved = 0.0
    for q in particles:  # fid: break
        moved += q["vx"] + q["vy"]  # fid: break
    return total, fastest, moved


def main():
    dtype = np.dtype([("id", np.int64), ("vx", np.float64), ("vy", np.float64)])
    particles = np.zeros(4, dtype=dtype)
    particles["id"] = [7, 3, 9, 4]
    particles["vx"] = [1.0, -2.5, 0.5, 3.0]
    particles["vy"] = [0.0, 1.5, -4.0, 0.25]
    print(energy(particles, 2.0))


if __name__ == "__main__":
    main()
