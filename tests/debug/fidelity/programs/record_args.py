"""Records passed as arguments of jitted functions: from a jitted caller (a default left out, records in
the first and the third position) and from Python; read by key (NumPy's record scalars have no
attributes when the program runs in Python)."""

import numpy as np
from numba import njit


@njit(debug=True)
def kinetic(p, scale=1.0):
    e = 0.5 * p["m"] * (p["vx"] * p["vx"] + p["vy"] * p["vy"])  # fid: break
    return e * scale  # fid: break


@njit(debug=True)
def gap(a, weight, b):
    dx = a["vx"] - b["vx"]  # fid: break, next 2
    dy = a["vy"] - b["vy"]
    return weight * (dx * dx + dy * dy)


@njit(debug=True)
def total(particles):
    t = 0.0
    for i in range(particles.size):
        t += kinetic(particles[i])  # fid: break
        if i > 0:
            t += gap(particles[i], 0.5, particles[i - 1])
    return t


def main():
    dtype = np.dtype([("id", np.int32), ("m", np.float64), ("vx", np.float64), ("vy", np.float32)])
    particles = np.zeros(3, dtype=dtype)
    particles["id"] = [7, 3, 9]
    particles["m"] = [1.0, 2.0, 0.5]
    particles["vx"] = [1.5, -2.5, 4.0]
    particles["vy"] = [0.25, 1.0, -0.75]
    print(total(particles))
    print(kinetic(particles[2], 2.0))


if __name__ == "__main__":
    main()
