import random

from numba import njit


@njit
def estimate_pi(samples):
    inside = 0
    for _ in range(samples):
        x = random.random()
        y = random.random()
        if x * x + y * y < 1.0:
            inside += 1
    return 4.0 * inside / samples


n = 10_000
print("pi is about", estimate_pi(n))
