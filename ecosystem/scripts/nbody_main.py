"""N-body integration (the classic benchmark), with a main()."""
import numpy as np
from numba import njit


@njit(cache=False)
def energy(pos, vel, mass):
    e = 0.0
    n = pos.shape[0]
    for i in range(n):
        e += 0.5 * mass[i] * np.sum(vel[i] ** 2)
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            e -= mass[i] * mass[j] / np.sqrt(np.sum(d * d))
    return e


@njit
def advance(dt, steps, pos, vel, mass):
    n = pos.shape[0]
    for _ in range(steps):
        for i in range(n):
            for j in range(i + 1, n):
                d = pos[i] - pos[j]
                dist2 = np.sum(d * d)
                mag = dt / (dist2 * np.sqrt(dist2))
                vel[i] -= d * mass[j] * mag
                vel[j] += d * mass[i] * mag
        pos += dt * vel


def main(steps=100):
    rng = np.random.default_rng(42)
    pos = rng.standard_normal((5, 3))
    vel = rng.standard_normal((5, 3)) * 0.01
    mass = np.ones(5)
    print("before", energy(pos, vel, mass))
    advance(0.01, steps, pos, vel, mass)
    print("after ", energy(pos, vel, mass))


if __name__ == "__main__":
    main()
