"""rocket-fft: scipy.fft inside jitted code (the transforms are lowered by the package, no Python of its
own compiles), np.roll of a tuple or list (its @overload's implementation) and its lazy @vectorize
special functions."""

import numpy as np
import rocket_fft  # noqa: F401  (registers the overloads)
import scipy.fft
from numba import njit
from rocket_fft.special import loggamma, poch


@njit
def spectrum(signal):
    return np.abs(scipy.fft.rfft(signal))


@njit
def smooth_spectrum(signal, keep):
    coeffs = scipy.fft.dct(signal)
    coeffs[keep:] = 0.0
    return scipy.fft.idct(coeffs)


@njit
def roll_tuple(values, shift):
    return np.roll(values, shift)


signal = np.sin(np.linspace(0.0, 20.0, 256))
spectrum(signal)
smooth_spectrum(signal, 16)
roll_tuple((1.0, 2.0, 3.0), 1)
roll_tuple([1, 2, 3], 2)
print(loggamma(np.linspace(1.0, 5.0, 8)), poch(np.arange(1.0, 4.0), 2.0))
