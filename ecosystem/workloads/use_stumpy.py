"""stumpy: the matrix profile of a random walk, and a pattern search with it."""

import numpy as np
import stumpy

rng = np.random.default_rng(0)
series = np.cumsum(rng.standard_normal(300))
profile = stumpy.stump(series, m=20)
stumpy.mass(series[:20], series)
print("stumpy", profile.shape)
