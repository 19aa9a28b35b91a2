import numpy as np
from numba import njit


@njit
def accumulate(buffer, value):
    buffer[:] += value
    return buffer.sum()


class Accumulator:
    def __init__(self, size):
        self.buffer = np.zeros(size)

    def add(self, value):
        return accumulate(self.buffer, value)


acc = Accumulator(8)
print(acc.add(1.5))
