import numpy as np
import pytest
from numba import njit


@njit
def clip_scale(values, factor, limit):
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        out[i] = min(values[i] * factor, limit)
    return out


@njit
def window_sum(values, width):
    total = 0.0
    for i in range(width):
        total += values[i]
    return total


@njit
def count_above(values, threshold):
    n = 0
    for v in values:
        if v > threshold:
            n += 1
    return n


@pytest.mark.parametrize("factor", [0.5, 2.0, 3])
def test_clip_scale(factor):
    values = np.linspace(0.0, 1.0, 8)
    assert clip_scale(values, factor, 1.0).shape == (8,)


@pytest.mark.parametrize(
    "values, width",
    [
        (np.ones(10), 3),
        (np.arange(10, dtype=np.float32), 2),
        pytest.param(np.zeros(4), 4, id="all-zeros"),
    ],
)
def test_window_sum(values, width):
    assert window_sum(values, width) >= 0.0


@pytest.mark.parametrize("threshold", [0.25, 0.75])
@pytest.mark.parametrize("size", [5, 50])
def test_count_above(size, threshold):
    values = np.random.default_rng(size).random(size)
    assert 0 <= count_above(values, threshold) <= size


WIDTHS = [1, 2, 3]


@pytest.mark.parametrize("width", WIDTHS)
def test_window_sum_of_ints(width):
    assert window_sum(np.arange(5, dtype=np.int32), width) >= 0
