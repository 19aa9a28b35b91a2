import numpy as np
from numba import njit


@njit
def accelerations(pos, mass, softening):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                d = pos[j] - pos[i]
                r2 = (d * d).sum() + softening
                acc[i] += mass[j] * d / r2**1.5
    return acc


@njit
def leapfrog(pos, vel, mass, dt, steps):
    for _ in range(steps):
        vel += 0.5 * dt * accelerations(pos, mass, 0.01)
        pos += dt * vel
        vel += 0.5 * dt * accelerations(pos, mass, 0.01)
    return pos, vel


def simulate():
    rng = np.random.default_rng(42)
    n = 16
    pos = np.random.standard_normal((n, 3))
    vel = np.zeros((n, 3))
    mass = np.ones(n) / n
    pos, vel = leapfrog(pos, vel, mass, 0.01, 20)
    return pos, rng


if __name__ == "__main__":
    simulate()
