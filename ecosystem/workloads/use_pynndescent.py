"""pynndescent: build an index, query it, with two metrics."""

import numpy as np
from pynndescent import NNDescent

rng = np.random.default_rng(1)
data = rng.standard_normal((600, 8)).astype(np.float32)
index = NNDescent(data, n_neighbors=10, random_state=0, n_jobs=1)
index.query(data[:20], k=5)
NNDescent(data, metric="cosine", n_neighbors=8, random_state=0, n_jobs=1).neighbor_graph
print("pynndescent", index.neighbor_graph[0].shape)
