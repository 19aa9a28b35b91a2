"""sparse: COO and GCXS arrays: arithmetic, reductions, slicing, matmul."""

import numpy as np
import sparse

rng = np.random.default_rng(5)
dense = rng.random((40, 30))
dense[dense < 0.8] = 0.0
a = sparse.COO.from_numpy(dense)
(a + a).sum(axis=0)
a[3:10, ::2].todense()
(a @ a.T).todense()
sparse.GCXS.from_numpy(dense).sum()
np.sin(a).max()
sparse.concatenate([a, a], axis=0)
print("sparse ok")
