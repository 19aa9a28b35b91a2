"""numba-stats: pdf/cdf/ppf of common distributions, as a fit would call them."""

import numpy as np
from numba_stats import expon, norm, poisson, t, truncnorm, uniform

x = np.linspace(-3.0, 3.0, 101)
norm.pdf(x, 0.0, 1.0)
norm.cdf(x, 1.0, 2.0)
norm.ppf(np.linspace(0.01, 0.99, 11), 0.0, 1.0)
expon.pdf(np.abs(x), 0.0, 2.0)
t.cdf(x, 3.0, 0.0, 1.0)
truncnorm.pdf(x, -1.0, 2.0, 0.0, 1.0)
uniform.cdf(x, -1.0, 2.0)
poisson.pmf(np.arange(10), 3.0)
print("numba_stats ok")
