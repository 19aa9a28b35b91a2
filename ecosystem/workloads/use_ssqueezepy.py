"""ssqueezepy: synchrosqueezed CWT and STFT of a synthetic chirp."""

import numpy as np
import ssqueezepy
from ssqueezepy import ssq_cwt, ssq_stft, extract_ridges, Wavelet
from ssqueezepy.algos import find_closest, replace_at_inf_or_nan, indexed_sum

t = np.linspace(0.0, 1.0, 512, endpoint=False)
x = np.cos(2 * np.pi * (20 * t + 40 * t * t))
Tx, Wx, ssq_freqs, scales = ssq_cwt(x)
Tx2, Sx, *_ = ssq_stft(x, n_fft=128)
extract_ridges(np.abs(Tx[:, :256]), scales, penalty=2.0, n_ridges=1, bw=4)
Wavelet(("gmw", {"beta": 60}))
find_closest(np.linspace(0.0, 1.0, 50)[:, None] * np.ones((1, 4)), np.linspace(0.0, 1.0, 20), parallel=False)
replace_at_inf_or_nan(np.array([1.0, np.inf, np.nan]))
indexed_sum(np.ones((8, 16)), np.zeros((8, 16), dtype=np.int64), parallel=False)
print("ssqueezepy ok")
