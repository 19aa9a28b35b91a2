"""numba-kdtree: build a tree, query neighbours and radii, from Python."""

import numpy as np
from numba_kdtree import KDTree

rng = np.random.default_rng(4)
points = rng.random((500, 3))
tree = KDTree(points, leafsize=10)
found = tree.query(points[:20], k=4)
tree.query_radius(points[:5], r=0.2)
print("numba_kdtree", len(found))
