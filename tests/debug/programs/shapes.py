"""Tuples, named tuples and record arrays through the adapter (test_dap_session.py)."""

from collections import namedtuple

import numpy as np
from numba import njit

Point = namedtuple("Point", ["x", "y"])


@njit(debug=True)
def shapes(recs, n):
    t = (n, 2.5)
    p = Point(1.5, 2.5)
    k = n + 1
    return k, t, p, recs[1].w


rec_t = np.dtype([("id", np.int32), ("w", np.float64)])
recs = np.zeros(2, dtype=rec_t)
recs["id"] = [7, 8]
recs["w"] = [0.5, 1.5]
print(shapes(recs, 3))
