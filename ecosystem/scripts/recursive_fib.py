from numba import njit, int64


@njit(int64(int64))
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@njit
def fib_iter(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


for k in (10, 20, 25):
    assert fib(k) == fib_iter(k)
print("ok", fib(25))
