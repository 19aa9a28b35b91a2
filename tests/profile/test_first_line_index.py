"""The profiling hook's faster stand-in for Numba's `get_func_body_first_lineno` (one parse per file
instead of one per compiled function) gives Numba's own answer, on functions and nested functions
of Numba's large modules (the ones it re-parsed again and again)."""

from __future__ import annotations

import importlib
import inspect
import types
from collections import Counter

import pytest

MODULES = ["numba.np.arraymath", "numba.cpython.listobj"]
# Numba's own finder parses the whole module for each function (the slowness the stand-in removes):
# every SPREAD-th function, nested ones included, keeps this test to a few seconds.
SPREAD = 12


@pytest.fixture(scope="module")
def both() -> tuple[object, object]:
    from numba.core import lowering
    from numba.misc import firstlinefinder

    from pyserver.numba_api import profile_lines

    saved = lowering.get_func_body_first_lineno
    assert profile_lines.parse_each_file_once()
    indexed = lowering.get_func_body_first_lineno
    lowering.get_func_body_first_lineno = saved  # leave Numba as it was for the rest of the session
    assert indexed is not firstlinefinder.get_func_body_first_lineno
    return indexed, firstlinefinder.get_func_body_first_lineno


@pytest.mark.parametrize("module_name", MODULES)
def test_same_first_body_line_as_numba(module_name: str, both: tuple[object, object]) -> None:
    indexed, original = both
    module = importlib.import_module(module_name)
    # Some releases keep the functions in a module of their own that this one re-exports (Numba 0.61's
    # arraymath: old_arraymath): the module that defines most of them is the large one.
    defining = Counter(v.__module__ for v in vars(module).values() if inspect.isfunction(v))
    module_name = defining.most_common(1)[0][0]
    module = importlib.import_module(module_name)
    functions: list[object] = []
    for value in vars(module).values():
        if inspect.isfunction(value) and value.__module__ == module_name:
            functions.append(value)
            nested = [c for c in value.__code__.co_consts if isinstance(c, types.CodeType)]
            functions.extend(types.SimpleNamespace(__code__=c) for c in nested)
    assert len(functions) > 80
    found = 0
    for function in functions[::SPREAD]:
        expected = original(function)  # type: ignore[operator]
        assert indexed(function) == expected, function  # type: ignore[operator]
        found += expected is not None
    assert found > 5
