"""A jitclass accumulator driven from a jitted loop; its fields read back through methods."""

import numpy as np
from numba import float64, int64, njit
from numba.experimental import jitclass


@jitclass([("total", float64), ("count", int64)])
class Accumulator:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def add(self, x):
        self.total += x
        self.count += 1

    def mean(self):
        return self.total / self.count


@njit(debug=True)
def running_means(xs):
    acc = Accumulator()
    out = np.zeros(xs.shape[0])
    for i in range(xs.shape[0]):
        acc.add(xs[i])
        m = acc.mean()
        out[i] = m  # fid: break
    return out


def main():
    means = running_means(np.array([2.0, 4.0, 9.0]))
    print(means)  # fid: break


if __name__ == "__main__":
    main()
