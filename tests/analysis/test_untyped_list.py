"""`untyped-variable` on an empty list carries the element type the list's other uses give it (data.elementType),
read from Numba's partial typemap (of the function, or of a callee the list is passed to); None when nothing
tells, never a guess."""

from __future__ import annotations

from analysis_helpers import by_code

SOURCE = """\
import numpy as np
from numba import njit


@njit
def never_filled(n: int):
    values = []
    return len(values) + n


@njit
def grown_by_concatenation(x: float):
    values = []
    values += [x]
    return values


@njit
def grown_in_a_loop(n: int):
    values = []
    for i in range(n):
        values += [np.int32(i)]
    return values


@njit
def fill(v, n):
    for i in range(n):
        v.append(i * 0.5)


@njit
def filled_by_a_callee(n: int):
    values = []
    fill(values, n)
    return values


@njit
def count(v, n):
    return len(v) + n


@njit
def only_counted_by_a_callee(n: int):
    values = []
    return count(values, n)


@njit
def empty_dict(n: int):
    table = {}
    return len(table) + n
"""


def test_element_types_from_the_other_uses(ws) -> None:
    result = ws.analyze("untyped_lists.py", SOURCE)
    found = {d.function: d.data for d in by_code(result, "untyped-variable")}
    assert found["never_filled"] == {"variable": "values", "elementType": None}
    assert found["grown_by_concatenation"] == {"variable": "values", "elementType": "float64"}
    assert found["grown_in_a_loop"] == {"variable": "values", "elementType": "int32"}
    # `fill` appends `i * 0.5`: a variant of `fill` typed with an untyped list argument says float64.
    assert found["filled_by_a_callee"] == {"variable": "values", "elementType": "float64"}
    # `count` only takes the length: nothing tells the element type.
    assert found["only_counted_by_a_callee"] == {"variable": "values", "elementType": None}
    if "empty_dict" in found:  # an empty dict is not a list: no list element type
        assert found["empty_dict"]["elementType"] is None


def test_the_element_type_survives_reuse_from_the_cache(ws) -> None:
    ws.analyze("untyped_moved.py", SOURCE)
    moved = ws.analyze("untyped_moved.py", "\n\n" + SOURCE)
    assert "grown_in_a_loop" in moved.reused
    found = {d.function: d.data for d in by_code(moved, "untyped-variable")}
    assert found["grown_in_a_loop"] == {"variable": "values", "elementType": "int32"}
