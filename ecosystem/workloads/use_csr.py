"""csr: a structref CSR matrix used from Python and inside jitted code (its overload_method API)."""

import numpy as np
import scipy.sparse as sps
from csr import CSR
from numba import njit

rng = np.random.default_rng(5)
dense = sps.random(40, 30, density=0.2, format="csr", random_state=7)
matrix = CSR.from_scipy(dense)
matrix.normalize_rows("center")
matrix.row(3)
matrix.row_extent(4)
matrix.mult_vec(rng.standard_normal(30))
matrix.transpose()
matrix.multiply(matrix.transpose())
matrix.filter_nnzs(matrix.values > 0)
matrix.to_scipy()


@njit
def row_sums(m):
    out = np.zeros(m.nrows)
    for i in range(m.nrows):
        out[i] = np.sum(m.row_vs(i))
    return out


@njit
def nnz_per_row(m):
    counts = np.zeros(m.nrows, dtype=np.int64)
    for i in range(m.nrows):
        start, end = m.row_extent(i)
        counts[i] = end - start
    return counts


row_sums(matrix)
nnz_per_row(matrix)
print("csr", matrix.nnz)
