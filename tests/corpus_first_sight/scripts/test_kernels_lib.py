"""Tests in the style of pytest: plain test functions with their own data."""

import numpy as np
from kernels_lib import clip_inplace, dot, moving_average


def test_moving_average_of_ones():
    x = np.ones(20)
    assert np.allclose(moving_average(x, 5), 1.0)


def test_clip():
    x = np.arange(10.0)
    clip_inplace(x, 2.0, 5.0)
    assert x.min() == 2.0 and x.max() == 5.0


def test_dot_int_arrays():
    a = np.arange(5)
    b = np.arange(5)
    assert dot(a, b) == 30.0


def test_dot_float32():
    a = np.ones(4, dtype=np.float32)
    assert dot(a, a) == 4.0
