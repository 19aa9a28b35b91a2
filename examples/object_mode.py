"""Object mode with a lifted loop: the loop is compiled, the rest runs as Python objects."""

import numpy as np
from numba import jit


@jit(forceobj=True)
def summarise(values):
    names = {str(v) for v in values}  # a set of str: needs object mode
    total = 0.0
    for i in range(len(values)):  # this loop is lifted and compiled in nopython mode
        total += values[i] * 2.0
    return total, len(names)


if __name__ == "__main__":
    print(summarise(np.arange(5.0)))
