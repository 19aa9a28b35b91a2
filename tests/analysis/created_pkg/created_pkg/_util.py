"""The package's own jit helpers, as numba-stats and numbagg write them."""

import numba as nb


def fast(func):
    """A library's own decorator wrapping nb.njit (numba-stats style)."""
    return nb.njit(fastmath=True, error_model="numpy")(func)


class ndreduce:
    """A decorator class that keeps a gufunc builder on the object (numbagg style)."""

    def __init__(self, func, signature="(n)->()"):
        self.func = func
        self.gufunc = nb.guvectorize(["void(float64[:], float64[:])"], signature, nopython=True)(self.func)

    def __call__(self, values):
        return self.gufunc(values)
