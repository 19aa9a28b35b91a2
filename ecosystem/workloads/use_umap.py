"""umap-learn: embed a small blob data set in two dimensions."""

import numpy as np
import umap

rng = np.random.default_rng(2)
data = np.vstack([rng.normal(c, 1.0, (100, 6)) for c in (0.0, 5.0, 10.0)])
embedding = umap.UMAP(n_neighbors=10, n_epochs=30, random_state=0, n_jobs=1).fit_transform(data)
print("umap", embedding.shape)
