"""tslearn: dynamic time warping, soft-DTW and a k-means on time series."""

import numpy as np
from tslearn.clustering import TimeSeriesKMeans
from tslearn.metrics import cdist_dtw, dtw, soft_dtw

rng = np.random.default_rng(7)
series = np.cumsum(rng.standard_normal((6, 40, 1)), axis=1)
dtw(series[0], series[1])
soft_dtw(series[0], series[1], gamma=0.5)
cdist_dtw(series)
TimeSeriesKMeans(n_clusters=2, metric="dtw", max_iter=2, random_state=0).fit(series)
print("tslearn ok")
