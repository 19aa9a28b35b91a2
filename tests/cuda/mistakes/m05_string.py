import numpy as np
from numba import cuda


@cuda.jit
def labelled(values, out):
    i = cuda.grid(1)
    label = "value"
    weights = [0.5, 0.25]
    out[i] = values[i] * weights[0] + len(label)


def main():
    values = np.ones(32)
    out = np.zeros(32)
    labelled[1, 32](values, out)
