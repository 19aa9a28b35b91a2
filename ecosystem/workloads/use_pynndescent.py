"""pynndescent: build an index and query it."""

import numpy as np
from pynndescent import NNDescent

rng = np.random.default_rng(1)
data = rng.standard_normal((300, 6)).astype(np.float32)
index = NNDescent(data, n_neighbors=8, random_state=0, n_jobs=1)
index.query(data[:10], k=4)
print("pynndescent", index.neighbor_graph[0].shape)
