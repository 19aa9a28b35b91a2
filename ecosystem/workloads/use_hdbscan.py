"""hdbscan: cluster blobs (its Numba parts: validity index and prediction helpers)."""

import hdbscan
import numpy as np
from hdbscan.validity import validity_index

rng = np.random.default_rng(12)
data = np.vstack([rng.normal(c, 0.3, (60, 2)) for c in (0.0, 3.0)])
clusterer = hdbscan.HDBSCAN(min_cluster_size=10, prediction_data=True).fit(data)
validity_index(data, clusterer.labels_)
hdbscan.approximate_predict(clusterer, data[:5])
print("hdbscan", clusterer.labels_.max())
