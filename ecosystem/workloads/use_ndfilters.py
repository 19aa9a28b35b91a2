"""ndfilters: rolling mean, trimmed mean, median and variance filters, a generic filter with a jitted
function, and convolution, over 1-D and 2-D arrays with each edge mode."""

import numba
import numpy as np
import ndfilters

rng = np.random.default_rng(0)
image = rng.random((20, 24))
signal = rng.random(50)
for mode in ("mirror", "nearest", "wrap", "truncate"):
    ndfilters.mean_filter(image, size=3, mode=mode)
ndfilters.mean_filter(signal, size=5)
ndfilters.trimmed_mean_filter(image, size=(3, 5), proportion=0.2)
ndfilters.median_filter(image, size=3)
ndfilters.variance_filter(image, size=3)
ndfilters.convolve(image, kernel=np.ones((3, 3)) / 9.0)
ndfilters.convolve(signal, kernel=np.array([0.25, 0.5, 0.25]))


@numba.njit
def spread(values, args):
    return np.max(values) - np.min(values)


ndfilters.generic_filter(image, spread, size=3)
print("ndfilters ok")
