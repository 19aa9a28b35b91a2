"""Speed up an existing function without touching it: fast = jit(nopython=True)(slow)."""
import numpy as np
from numba import jit


def slow_cumsum(values):
    out = np.empty_like(values)
    total = 0.0
    for i in range(values.shape[0]):
        total += values[i]
        out[i] = total
    return out


fast_cumsum = jit(nopython=True)(slow_cumsum)

x = np.linspace(0.0, 1.0, 1000)
assert np.allclose(fast_cumsum(x), np.cumsum(x))
print(fast_cumsum(x)[-1])
