import numpy as np
from numba import njit


@njit
def rolling_std(x, window=5):
    out = np.full(x.shape[0], np.nan)
    for i in range(window - 1, x.shape[0]):
        out[i] = x[i - window + 1 : i + 1].std()
    return out


series = np.sin(np.linspace(0.0, 6.0, 100))
print(np.nanmean(rolling_std(series)))
print(np.nanmean(rolling_std(series, window=9)))
