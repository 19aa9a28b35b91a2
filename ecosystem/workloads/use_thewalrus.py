"""thewalrus: hafnians (plain, loop, with repetitions), permanents, torontonians and Hermite polynomials."""

import numpy as np
import thewalrus

rng = np.random.default_rng(0)
a = rng.normal(size=(6, 6))
a = a + a.T
c = a + 1j * rng.normal(size=(6, 6))
c = c + c.T
thewalrus.hafnian(a)
thewalrus.hafnian(c)
thewalrus.hafnian(a, loop=True)
thewalrus.hafnian(a, method="recursive")
thewalrus.hafnian_repeated(a[:3, :3], [1, 2, 1])
thewalrus.hafnian_banded(np.diag(np.ones(5), 1) + np.diag(np.ones(5), -1))
thewalrus.perm(a[:4, :4])
thewalrus.perm(c[:4, :4], method="bbfg")
thewalrus.perm(c[:4, :4])
sigma = np.eye(4) + 0.1 * np.ones((4, 4))
thewalrus.tor(0.1 * np.eye(4) + 0.01 * np.ones((4, 4)))
thewalrus.threshold_detection_prob(np.zeros(8), 2 * np.eye(8) + 0.1 * np.ones((8, 8)), np.array([1, 0, 1, 0]))
thewalrus.hermite_multidimensional(np.eye(2) * 0.3, 4)
thewalrus.reduction(a, [1, 1, 0, 2, 0, 0])
print("thewalrus ok")
