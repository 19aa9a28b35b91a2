"""Typing errors from Numba's troubleshooting guide ("My code does not compile")."""

import numpy as np
from numba import njit


@njit("int64(int64)")
def add_tuple(x):
    # An int plus a tuple: Numba has no implementation of `+` for (int64, UniTuple(int64 x 2)).
    return x + (1, 2)


@njit
def parse_number(text: str):
    # float() of a string is not supported in nopython mode.
    return float(text)


@njit
def scale(a: np.ndarray, factor: float):
    # Fine on its own; the error is in the caller below, which passes a tuple.
    return a * factor


@njit
def calls_scale(a: "float64[:]"):
    return scale(a, (1, 2))
