"""A jitclass program in the style of Numba's examples, and a function made fast by calling jit on it."""

import numpy as np
from numba import float32, int32, jit
from numba.experimental import jitclass

spec = [("value", int32), ("array", float32[:])]


@jitclass(spec)
class Bag:
    def __init__(self, value):
        self.value = value
        self.array = np.zeros(value, dtype=np.float32)

    @property
    def size(self):
        return self.array.size

    def increment(self, val):
        for i in range(self.size):
            self.array[i] += val
        return self.array


def slow_sum(values):
    total = 0.0
    for v in values:
        total += v
    return total


fast_sum = jit(nopython=True)(slow_sum)


if __name__ == "__main__":
    bag = Bag(21)
    print(bag.value, bag.size, bag.increment(3).sum())
    print(fast_sum(np.arange(100.0)))
