"""resampy: resample a signal between common audio rates."""

import numpy as np
import resampy

signal = np.sin(np.linspace(0.0, 200.0, 8000))
resampy.resample(signal, 8000, 4000)
resampy.resample(signal.astype(np.float32), 8000, 11025, filter="kaiser_fast")
print("resampy ok")
