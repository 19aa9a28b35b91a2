"""antropy: entropies (permutation, sample, approximate, Lempel-Ziv) and fractal dimensions."""

import numpy as np
import antropy as ant

rng = np.random.default_rng(0)
x = rng.normal(size=600)
ant.perm_entropy(x, normalize=True)
ant.spectral_entropy(x, sf=100, method="welch", normalize=True)
ant.svd_entropy(x, normalize=True)
ant.app_entropy(x)
ant.sample_entropy(x)
ant.sample_entropy(x, order=3)
ant.lziv_complexity("01111000011001", normalize=True)
ant.lziv_complexity(np.array([1, 0, 1, 1, 0, 0, 1]))
ant.num_zerocross(x)
ant.hjorth_params(x)
ant.petrosian_fd(x)
ant.katz_fd(x)
ant.higuchi_fd(x)
ant.higuchi_fd(list(x), kmax=5)
ant.detrended_fluctuation(x)
print("antropy ok")
