"""wotan: light-curve detrending with its sliding-window location estimators, cosine fits and LOWESS."""

import numpy as np
from wotan import flatten, slide_clip, t14

rng = np.random.default_rng(0)
time = np.linspace(0, 30, 3000)
flux = 1 + 0.01 * np.sin(time) + 0.001 * rng.normal(size=time.size)
for method in ["biweight", "andrewsinewave", "welsch", "hodges", "median", "mean", "trim_mean",
               "winsorize", "hampelfilt", "huber_psi", "tau"]:
    flatten(time, flux, window_length=0.5, method=method)
flatten(time, flux, window_length=0.5, method="biweight", return_trend=True, edge_cutoff=0.5)
flatten(time, flux, window_length=0.5, method="cosine", robust=True)
flatten(time, flux, window_length=0.5, method="cofiam")
flatten(time, flux, window_length=0.5, method="lowess")
slide_clip(time, flux, window_length=0.5, low=3, high=2)
t14(R_s=1, M_s=1, P=365)
print("wotan ok")
