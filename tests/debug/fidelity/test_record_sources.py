"""Which record type a record scalar of a jitted frame has (pyserver/debug/values/records.py `record_type`): Numba's DWARF types
it only as a pointer to N bytes, so the type comes from the array it is surely taken from, or from
nowhere. No gdb needed: the frame report is built by hand."""

from __future__ import annotations

from typing import Any

from pyserver.debug.values.numba_types import parse_numba_type
from pyserver.debug.values.records import record_pointer_size, record_type
from pyserver.debug.values.report import FrameReport, RawVar, SourceIndex

RECORD = "Record(n[type=int64;offset=0],w[type=float64;offset=8];16;False)"
ARRAY = f"unaligned array({RECORD}, 1d, C)"
SOURCE = """
def f(parts, other):
    p = parts[1]
    for q in parts:
        pass
    r = parts[0]
    r = other[0]
    s = parts[0]
    s += 1
    return p, q, r, s


def g(p):
    return p
"""


def _pointer_layout(size: int) -> dict[str, Any]:
    return {
        "code": "ptr",
        "size": "8",
        "type": "",
        "target": {
            "code": "array",
            "size": str(size),
            "count": str(size),
            "elem": {"code": "int", "size": "1"},
        },
    }


def _raw(name: str, line: int, type_text: str = "", layout: dict[str, Any] | None = None) -> RawVar:
    numba_type = parse_numba_type(type_text)
    return RawVar(
        name, name, 0, line, False, numba_type, layout or {"code": "struct", "type": type_text}, b"", []
    )


def _report(function: str = "__main__::f[abi:v1](Array<...>)") -> FrameReport:
    return FrameReport(1, 0, 0, 3, "/x.py", function, [], None, "")


def test_record_sources_accepts_only_index_and_iteration_of_a_name() -> None:
    index = SourceIndex(SOURCE)
    assert index.record_sources("f", "p") == {"parts"}
    assert index.record_sources("f", "q") == {"parts"}
    assert index.record_sources("f", "r") == {"parts", "other"}
    assert index.record_sources("f", "s") is None  # `s += 1`: another form of assignment
    assert index.record_sources("g", "p") is None  # a parameter: nothing in this frame says its type
    assert index.record_sources("h", "p") is None  # no such function


def test_record_type_comes_from_the_array_it_is_taken_from() -> None:
    index = SourceIndex(SOURCE)
    groups = {"parts": [_raw("parts", 2, ARRAY)], "p": [_raw("p", 3, layout=_pointer_layout(16))]}
    assert record_pointer_size(groups["p"][0]) == 16
    record = record_type(_report(), "p", groups, index)
    assert record is not None and record.text == RECORD and record.names == ("n", "w")


def test_record_type_refuses_a_size_mismatch_other_arrays_and_missing_arrays() -> None:
    index = SourceIndex(SOURCE)
    wrong_size = {"parts": [_raw("parts", 2, ARRAY)], "p": [_raw("p", 3, layout=_pointer_layout(8))]}
    assert record_type(_report(), "p", wrong_size, index) is None
    floats = {
        "parts": [_raw("parts", 2, "array(float64, 1d, C)")],
        "p": [_raw("p", 3, layout=_pointer_layout(16))],
    }
    assert record_type(_report(), "p", floats, index) is None
    # `r` is taken from `parts` and from `other`: `other` is not a variable of the frame.
    only_parts = {"parts": [_raw("parts", 2, ARRAY)], "r": [_raw("r", 6, layout=_pointer_layout(16))]}
    assert record_type(_report(), "r", only_parts, index) is None
    # A changed file (the line no longer names the variable) gives no type.
    moved = {"parts": [_raw("parts", 2, ARRAY)], "p": [_raw("p", 4, layout=_pointer_layout(16))]}
    assert record_type(_report(), "p", moved, index) is None


def test_a_record_field_is_read_by_key_and_by_attribute() -> None:
    import ast

    import pytest

    from pyserver.debug.values.expressions import Evaluator
    from pyserver.debug.values.model import JitValueError, JitVariable

    fields = {"n": JitVariable("n", "2", "int64", raw=2), "w": JitVariable("w", "1.5", "float64", raw=1.5)}
    p = JitVariable("p", "(2, 1.5)", RECORD, raw=fields)
    acc = JitVariable("acc", "Acc(n=2)", "instance.jitclass.Acc#1<n:int64>", raw={"n": fields["n"]})

    def run(expression: str) -> str:
        tree = ast.parse(expression, mode="eval")
        return Evaluator(None, 1, 0, {"p": p, "acc": acc}, expression).run(tree).value  # type: ignore[arg-type]

    assert run('p["w"] * p["n"]') == "3.0"
    assert run("p.w") == "1.5"
    with pytest.raises(JitValueError, match="no field 'x'"):
        run('p["x"]')
    with pytest.raises(JitValueError):
        run('acc["n"]')  # a jitclass has attributes, not keys
