"""A CUDA kernel, debugged as Python in Numba's CUDA simulator (no GPU needed)."""

import numpy as np
from numba import cuda


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def main():
    a = np.zeros(4)
    add_one[1, 4](a)
    print("cudasim:", a)


if __name__ == "__main__":
    main()
