"""1-D heat equation, explicit scheme: the state goes round the time loop."""

import numpy as np
from numba import njit


@njit
def step(u, alpha):
    new = u.copy()
    for i in range(1, u.shape[0] - 1):
        new[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    return new


@njit
def energy(u):
    return (u * u).sum()


def main(steps=50):
    u = np.zeros(64)
    u[32] = 1.0
    alpha = 0.25
    for _ in range(steps):
        u = step(u, alpha)
    print("energy", energy(u))


if __name__ == "__main__":
    main()
