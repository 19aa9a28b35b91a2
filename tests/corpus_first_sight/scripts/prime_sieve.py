import numpy as np
from numba import njit


@njit
def sieve(limit):
    is_prime = np.ones(limit + 1, dtype=np.bool_)
    is_prime[:2] = False
    for i in range(2, int(limit**0.5) + 1):
        if is_prime[i]:
            is_prime[i * i :: i] = False
    return np.nonzero(is_prime)[0]


def count_primes(limit):
    return sieve(limit).shape[0]


print(count_primes(1000))
