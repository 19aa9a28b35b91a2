"""rocket-fft: numpy.fft and scipy.fft inside jitted code, through the package's own overloads."""

import numpy as np
import rocket_fft  # noqa: F401  (registers the overloads)
from numba import njit


@njit
def spectrum(signal):
    return np.abs(np.fft.rfft(signal))


@njit
def roundtrip(values):
    return np.fft.ifft(np.fft.fft(values)).real


signal = np.sin(np.linspace(0.0, 20.0, 256))
spectrum(signal)
roundtrip(signal)
print("rocket_fft ok")
