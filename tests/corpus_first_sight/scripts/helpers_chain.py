"""Arrays handed along: main -> prepare -> normalise (a jitted kernel)."""

import numpy as np
from numba import njit


@njit
def normalise(values, scale):
    out = np.empty_like(values)
    top = values.max()
    for i in range(values.shape[0]):
        out[i] = scale * values[i] / top
    return out


def prepare(raw, scale):
    return normalise(raw, scale)


def main():
    raw = np.linspace(1.0, 10.0, 40)
    print(prepare(raw, 2.0).sum())
    print(prepare(raw[::2], 1).sum())


if __name__ == "__main__":
    main()
