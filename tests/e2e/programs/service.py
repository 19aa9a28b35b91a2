"""A long-running program that calls a jitted function now and then: attach to it by process id."""

import time

from numba import njit


@njit(debug=True)
def tick(n):
    acc = 0
    for i in range(n):
        acc += i
    return acc


def main():
    print("ready", tick(3), flush=True)
    for _ in range(30000):
        tick(5)
        time.sleep(0.02)


if __name__ == "__main__":
    main()
