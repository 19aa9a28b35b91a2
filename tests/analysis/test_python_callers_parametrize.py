"""pytest's parametrize cases as a source of a test's parameter types (the corpus test,
tests/corpus_first_sight, compares them with a recorded run); here, cases in a module-level list,
parametrize beside a fixture, and what is refused and why."""

from __future__ import annotations

from analysis_helpers import by_code, function_named

SOURCE = """
import numpy as np
import pytest
from numba import njit


@njit
def kernel(a, b):
    return 0


SIZES = [1, 2]


@pytest.fixture
def data():
    return np.arange(4.0)


@pytest.mark.parametrize("scale", [2, 0.5])
def test_with_a_fixture(data, scale):
    kernel(data, scale)


@pytest.mark.parametrize("n", SIZES)
def test_names_a_list(n):
    kernel(n, n)


@pytest.mark.parametrize("data", [1, 2], indirect=True)
def test_indirect(data):
    kernel(data, 1)


@pytest.mark.parametrize("m", [1, 2])
def test_shadowed(m):
    kernel(m, 1)
"""


def test_parametrize_cases_and_what_is_refused(ws) -> None:
    result = ws.analyze("test_pc_parametrize.py", SOURCE)
    kernel = function_named(result, "kernel")
    by_caller: dict[str, set[tuple[str, ...]]] = {}
    for signature in kernel.signatures:
        for caller in signature.callers:
            by_caller.setdefault(caller.function, set()).add(tuple(signature.args))
    assert by_caller == {
        "test_with_a_fixture": {("array(float64, 1d, C)", "int64"), ("array(float64, 1d, C)", "float64")},
        "test_names_a_list": {("int64", "int64")},  # SIZES, a module-level list nothing changes
        "test_shadowed": {("int64", "int64")},
    }


def test_the_reasons_a_case_gives_no_types(ws) -> None:
    source = SOURCE.replace("def kernel(a, b)", "def other(a, b)").replace("kernel(", "other(")
    source = source.replace(
        '@pytest.mark.parametrize("m", [1, 2])', '@pytest.mark.parametrize("m", [m_value])'
    )
    source = source.replace("def test_shadowed(m):", "def test_shadowed(m):\n    m_value = 3")
    source = source.replace("def test_with_a_fixture", "def unused").replace("other(data, scale)", "pass")
    source = source.replace("SIZES = [1, 2]", "SIZES = [1, 2]\nSIZES.append(2.5)")
    result = ws.analyze("test_pc_parametrize_refused.py", source)
    assert not function_named(result, "other").signatures
    [note] = by_code(result, "no-signature")
    # SIZES changes after it is made: its items are not read from the source
    assert "its parametrize arguments are not written out in the source" in note.message, note.message
    assert "its parametrize values go through fixtures (indirect), not followed" in note.message
    assert "a parametrize value of 'test_shadowed' reads a name the test also binds" in note.message
