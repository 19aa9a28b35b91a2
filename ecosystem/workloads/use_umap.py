"""umap-learn: embed a small blob data set in two dimensions."""

import numpy as np
import umap

rng = np.random.default_rng(2)
data = np.vstack([rng.normal(c, 1.0, (60, 5)) for c in (0.0, 5.0)])
embedding = umap.UMAP(n_neighbors=8, n_epochs=20, random_state=0, n_jobs=1).fit_transform(data)
print("umap", embedding.shape)
