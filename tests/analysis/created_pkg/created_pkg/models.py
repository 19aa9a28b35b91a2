import numba
import numpy as np

from created_pkg._util import fast, ndreduce

SHIFT = 1.5


@numba.njit
def plain(x: float):
    return x + SHIFT


def _step_py(values: numba.float64[:], k: float):
    total = 0.0
    for v in values:
        total += v * k
    return total


_step = numba.njit(_step_py, fastmath=True)  # made by a call (umap-learn style)


@fast
def _pdf(x: float):
    return np.exp(-0.5 * x * x)


@ndreduce
def nansum_kernel(values, out):
    total = 0.0
    for v in values:
        if not np.isnan(v):
            total += v
    out[0] = total


def _mean_kernel(values, out):
    out[0] = values.mean()


class Layout:
    """Builds a gufunc on the instance; the instance is made at import."""

    def __init__(self):
        self.kernel = numba.guvectorize(["void(float64[:], float64[:])"], "(n)->()")(_mean_kernel)


LAYOUT = Layout()


def not_jitted(x):
    return x
