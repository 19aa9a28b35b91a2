import sys

import numpy as np
from numba import njit


@njit
def scale_by(x, factor):
    return x * factor


def main():
    factor = 2
    if len(sys.argv) > 5:
        factor = 2.5
    print(scale_by(np.ones(3), factor))


main()
