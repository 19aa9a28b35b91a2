"""quantecon: Markov chains, discrete dynamic programming, root finding, games."""

import numpy as np
import quantecon as qe
from quantecon.optimize import brentq, nelder_mead, newton


def f(x):
    return x**3 - 2.0 * x - 5.0


def f_prime(x):
    return 3.0 * x**2 - 2.0


P = np.array([[0.9, 0.1], [0.4, 0.6]])
mc = qe.MarkovChain(P)
stationary = mc.stationary_distributions
mc.simulate(50, random_state=0)
qe.markov.tauchen(5, 0.9, 0.1)
qe.util.searchsorted(np.array([0.1, 0.5, 0.9]), 0.6)
from numba import njit  # noqa: E402

jf = njit(f)
brentq(jf, 1.0, 3.0)
newton(jf, 2.0, njit(f_prime))  # quantecon's newton takes the derivative
nelder_mead(njit(lambda x: -((x[0] - 1.0) ** 2) - (x[1] - 2.0) ** 2), np.array([0.0, 0.0]))
R = np.array([[5.0, 10.0], [-1.0, -np.inf]])
Q = np.array([[[0.5, 0.5], [0.0, 1.0]], [[0.0, 1.0], [0.5, 0.5]]])
qe.markov.DiscreteDP(R, Q, 0.95).solve(method="policy_iteration")
print("quantecon ok")
