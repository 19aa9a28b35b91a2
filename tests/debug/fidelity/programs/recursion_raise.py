"""Recursion in jitted code, and a ValueError raised in jitted code and caught in Python."""

from numba import njit


@njit(debug=True)
def fib(n):
    if n < 2:
        return n  # fid: break
    left = fib(n - 1)
    right = fib(n - 2)
    return left + right


@njit(debug=True)
def checked_root(x):
    if x < 0.0:
        raise ValueError("negative input")
    r = x**0.5  # fid: break
    return r


def main():
    f = fib(3)
    roots = 0.0
    for x in (4.0, -1.0):
        try:
            roots += checked_root(x)
        except ValueError:
            roots -= 1.0
    print(f, roots)  # fid: break


if __name__ == "__main__":
    main()
