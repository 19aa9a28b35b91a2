import numpy as np
from numba import njit


@njit
def mean_and_std(x):
    m = x.mean()
    return m, np.sqrt(((x - m) ** 2).mean())


@njit
def summarize(x):
    lo = x.min()
    hi = x.max()
    m, s = mean_and_std(x)
    return (lo, hi, m, s)


samples = np.random.randn(500).astype(np.float32)
print(summarize(samples))
print(summarize(samples.astype(np.float64)))
