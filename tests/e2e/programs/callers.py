"""A Python caller holding an object while a jitted function runs: stopped in the jitted loop, the
caller's frame shows the object's fields, read from memory (a typed List among them)."""

import numpy as np
from numba import njit
from numba.typed import List


class Batch:
    def __init__(self, name, values):
        self.name = name
        self.size = len(values)
        self.values = values
        self.weights = List([0.5, 1.5, 2.0])


@njit(debug=True)
def weighted_sum(values, weights):
    total = 0.0
    for i in range(len(weights)):
        total += values[i] * weights[i]  # STOP
    return total


def main():
    batch = Batch("morning", np.arange(1.0, 4.0))
    result = weighted_sum(batch.values, batch.weights)
    print("weighted:", result)


if __name__ == "__main__":
    main()
