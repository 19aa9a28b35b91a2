"""hyppo: independence and k-sample tests (distance correlation, HHG, MANOVA, Friedman-Rafsky) on
synthetic data, without permutations where the test allows."""

import numpy as np
from hyppo.independence import Dcorr, HHG, Hsic
from hyppo.ksample import MANOVA, KSample
from hyppo.tools import linear

np.random.seed(1)
x, y = linear(40, 1)
Dcorr().statistic(x, y)
Dcorr(compute_distance=None).statistic(np.abs(x - x.T), np.abs(y - y.T))
Dcorr().test(x, y, reps=20, random_state=2)
Dcorr().test(x, y, auto=True)
HHG().statistic(x, y)
Hsic().statistic(x, y)
rng = np.random.default_rng(3)
a, b = rng.normal(size=(20, 2)), rng.normal(size=(25, 2))
MANOVA().statistic(a, b)
KSample("Dcorr").statistic(a, b)
print("hyppo ok")
