import numba
from numba.typed import List


@numba.njit
def primes_below(n):
    found = List.empty_list(numba.int64)
    for k in range(2, n):
        is_prime = True
        for p in found:
            if p * p > k:
                break
            if k % p == 0:
                is_prime = False
                break
        if is_prime:
            found.append(k)
    return found


@numba.njit
def total(values):
    s = 0
    for v in values:
        s += v
    return s


ps = primes_below(500)
print(len(ps), total(ps))
