"""Values of jitted frames, read from real programs stopped by real gdb (NUMBA_OPT=0, debug info).

Each program in values_programs/ writes what NumPy/Python computed for the same values (the expected
JSON) before calling its jitted function; the tests compare what the reader shows with that.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

PROGRAMS = Path(__file__).resolve().parents[1] / "values_programs"
sys.path.insert(0, str(PROGRAMS))

from harness import StoppedProgram, run_to_line, stop_line  # noqa: E402

from pyserver.debug.values import (  # noqa: E402
    UNAVAILABLE,
    JitValueError,
    JitValueReader,
    JitVariable,
    decode_scalar,
    parse_numba_type,
)
from pyserver.debug.values.report import SourceIndex  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")


@contextmanager
def _session(program: str, marker: str = "# STOP") -> Iterator[tuple[StoppedProgram, JitValueReader]]:
    path = PROGRAMS / program
    stopped = run_to_line(path, stop_line(path, marker))
    try:
        yield stopped, JitValueReader(stopped.backend)
    finally:
        survivors = stopped.close()
        assert not survivors, f"left behind: {survivors}"


@pytest.fixture(scope="module")
def scalars() -> Iterator[tuple[StoppedProgram, JitValueReader]]:
    with _session("scalars_arrays.py") as session:
        yield session


@pytest.fixture(scope="module")
def containers() -> Iterator[tuple[StoppedProgram, JitValueReader]]:
    with _session("containers.py") as session:
        yield session


def _vars(session: tuple[StoppedProgram, JitValueReader], scope: str) -> dict[str, JitVariable]:
    stopped, reader = session
    scopes = {s.name: s for s in reader.frame_scopes(stopped.thread_id, 0)}
    return {v.name: v for v in scopes[scope].variables}


def _elements(
    reader: JitValueReader, variable: JitVariable, start: int = 0, count: int | None = None
) -> list[str]:
    assert variable.children is not None, variable
    return [child.value for child in reader.children(variable.children, start, count)]


# --- scalars, complex, bool, arrays, tuples -------------------------------------------------------------


def test_scopes_are_arguments_then_locals(scalars):
    stopped, reader = scalars
    assert stopped.frame["func"].startswith("__main__::kernel")
    assert [s.name for s in reader.frame_scopes(stopped.thread_id, 0)] == ["Arguments", "Locals"]
    assert list(_vars(scalars, "Arguments")) == ["a", "n", "flag", "z", "m"]


def test_argument_that_gdb_reads_as_zero_is_recovered(scalars):
    stopped, _reader = scalars
    # gdb's own view of `n` at this line: the constant 0 Numba's debug info leaves behind.
    raw = stopped.backend.execute(
        f"-stack-list-variables --thread {stopped.thread_id} --frame 0 --all-values"
    )
    gdb_n = next(v["value"] for v in raw["variables"] if v["name"] == "n")
    assert gdb_n == "0"
    n = _vars(scalars, "Arguments")["n"]
    assert n.available and n.value == str(stopped.expected["n"]) == "4"
    assert n.type == "int64"


def test_scalars_print_as_python(scalars):
    args = _vars(scalars, "Arguments")
    assert args["flag"].value == "True" and args["flag"].type == "bool"
    assert args["z"].value == repr(complex(*scalars[0].expected["z"])) == "(1+2j)"
    local = _vars(scalars, "Locals")
    assert local["c"].value == repr(complex(*scalars[0].expected["c"]))
    assert local["b"].value == "True"


def test_one_d_array_shows_type_shape_and_numpy_values(scalars):
    stopped, reader = scalars
    a = _vars(scalars, "Arguments")["a"]
    assert a.value == "array(float64, 1d, C) shape=(6,)"
    assert a.type == "array(float64, 1d, C)"
    assert a.indexed_count == 6
    assert _elements(reader, a) == [repr(x) for x in stopped.expected["a"]]
    assert _elements(reader, a, 2, 3) == [repr(x) for x in stopped.expected["a"][2:5]]


def test_two_d_array_expands_by_rows(scalars):
    stopped, reader = scalars
    m = _vars(scalars, "Arguments")["m"]
    assert m.value == "array(float64, 2d, C) shape=(3, 4)"
    assert m.indexed_count == 3
    rows = reader.children(m.children) if m.children else []
    assert [r.name for r in rows] == ["[0]", "[1]", "[2]"]
    for row, expected in zip(rows, stopped.expected["m"], strict=True):
        assert row.type == "array(float64, 1d, C)"
        assert _elements(reader, row) == [repr(x) for x in expected]


def test_local_array_view_reads_with_strides(scalars):
    stopped, reader = scalars
    row = _vars(scalars, "Locals")["row"]
    assert row.value == "array(float64, 1d, C) shape=(4,)"
    assert _elements(reader, row) == [repr(x) for x in stopped.expected["m"][1]]


def test_ssa_versions_fold_to_the_live_value(scalars):
    stopped, _reader = scalars
    local = _vars(scalars, "Locals")
    names = list(local)
    assert not any("$" in name for name in names), names
    total = local["total"]
    assert total.available and total.value == repr(stopped.expected["total"])


def test_dead_loop_variable_is_unavailable_not_zero(scalars):
    i = _vars(scalars, "Locals")["i"]
    # The loop ended with i == 3; gdb reads 0 here. Unavailable is right, 0 would be wrong.
    assert not i.available and i.value == UNAVAILABLE
    assert "0" != i.value


def test_tuple_and_named_tuple_expand_to_members(scalars):
    stopped, reader = scalars
    local = _vars(scalars, "Locals")
    t = local["t"]
    assert t.type == "Tuple(int64, float64)"
    assert t.value == f"(4, {stopped.expected['total']!r})"
    assert t.children is not None
    assert [(c.name, c.value) for c in reader.children(t.children)] == [
        ("[0]", "4"),
        ("[1]", repr(stopped.expected["total"])),
    ]
    p = local["p"]
    assert p.value == "Point(1.5, 2.5)"
    assert p.children is not None
    assert [c.value for c in reader.children(p.children)] == ["1.5", "2.5"]


def test_evaluate_watch_and_hover_read_the_same_values(scalars):
    stopped, reader = scalars
    tid = stopped.thread_id
    assert reader.evaluate(tid, 0, "n", "hover").value == "4"
    assert reader.evaluate(tid, 0, "a[2]", "watch").value == repr(stopped.expected["a"][2])
    assert reader.evaluate(tid, 0, "a[-1]", "watch").value == repr(stopped.expected["a"][-1])
    assert reader.evaluate(tid, 0, "m[1, 2]", "watch").value == repr(stopped.expected["m"][1][2])
    assert reader.evaluate(tid, 0, "m[2][3]", "hover").value == repr(stopped.expected["m"][2][3])
    assert reader.evaluate(tid, 0, "total * 2", "watch").value == repr(stopped.expected["total"] * 2)
    assert reader.evaluate(tid, 0, "z.imag", "watch").value == "2.0"
    assert reader.evaluate(tid, 0, "a.shape", "hover").value == "(6,)"
    assert reader.evaluate(tid, 0, "n > 2", "watch").value == "True"
    row = reader.evaluate(tid, 0, "m[1]", "hover")
    assert row.children is not None and row.indexed_count == 4


def test_evaluate_watch_and_hover_refuse_side_effects(scalars):
    stopped, reader = scalars
    tid = stopped.thread_id
    for context in ("watch", "hover"):
        with pytest.raises(JitValueError, match="calls and assignments"):
            reader.evaluate(tid, 0, "print(n)", context)
        with pytest.raises(JitValueError, match="assignments"):
            reader.evaluate(tid, 0, "n = 5", context)
        with pytest.raises(JitValueError, match="out of bounds"):
            reader.evaluate(tid, 0, "a[6]", context)
        with pytest.raises(JitValueError, match="unavailable"):
            reader.evaluate(tid, 0, "i", context)
    # Nothing changed: n still reads 4.
    assert reader.evaluate(tid, 0, "n", "watch").value == "4"


def test_evaluate_repl_uses_values_first_then_gdb(scalars):
    stopped, reader = scalars
    tid = stopped.thread_id
    # A name goes through the reader (gdb alone would say 0).
    assert reader.evaluate(tid, 0, "n", "repl").value == "4"
    # A gdb expression: raw SSA versions, gdb arithmetic.
    listed = stopped.backend.execute(f"-stack-list-variables --thread {tid} --frame 0 --no-values")
    versions = [v["name"] for v in listed["variables"]]
    version = next(name for name in versions if name.startswith("total$"))
    assert reader.evaluate(tid, 0, f"sizeof({version})", "repl").value == "8"
    with pytest.raises(JitValueError):
        reader.evaluate(tid, 0, "no_such_symbol_here", "repl")


# --- strings, containers, records, datetime, complex arrays, paging -----------------------------------


def test_unicode_string_shows_as_text(containers):
    s = _vars(containers, "Locals")["s"]
    assert s.type == "unicode_type"
    assert s.value == repr(containers[0].expected["s"])


def test_typed_list_shows_items(containers):
    stopped, reader = containers
    lst = _vars(containers, "Locals")["lst"]
    expected = [repr(x) for x in stopped.expected["lst"]]
    assert lst.type == "ListType[float64]"
    assert lst.indexed_count == len(expected)
    assert _elements(reader, lst) == expected
    assert reader.evaluate(stopped.thread_id, 0, "lst[3]", "watch").value == expected[3]


def test_typed_dict_shows_items(containers):
    stopped, reader = containers
    d = _vars(containers, "Locals")["d"]
    assert d.type.startswith("DictType[unicode_type,int64]")
    assert d.children is not None
    items = {c.name: c.value for c in reader.children(d.children)}
    assert items == {repr(k): str(v) for k, v in stopped.expected["d"].items()}


def test_jitclass_instance_shows_fields(containers):
    stopped, reader = containers
    acc = _vars(containers, "Locals")["acc"]
    assert acc.value == "Acc(x=2.5, n=3)"
    assert acc.children is not None
    assert [(c.name, c.value) for c in reader.children(acc.children)] == [("x", "2.5"), ("n", "3")]
    assert reader.evaluate(stopped.thread_id, 0, "acc.x * acc.n", "watch").value == "7.5"


def test_structured_array_expands_to_fields(containers):
    stopped, reader = containers
    recs = _vars(containers, "Arguments")["recs"]
    assert parse_numba_type(recs.type).dtype is not None
    assert recs.indexed_count == 3
    rows = reader.children(recs.children) if recs.children else []
    for row, (rec_id, weight) in zip(rows, stopped.expected["recs"], strict=True):
        assert row.children is not None
        assert [(c.name, c.value) for c in reader.children(row.children)] == [
            ("id", str(rec_id)),
            ("w", repr(weight)),
        ]
    assert reader.evaluate(stopped.thread_id, 0, "recs[1].w", "hover").value == repr(
        stopped.expected["recs"][1][1]
    )


def test_datetime_and_complex_arrays_are_readable(containers):
    stopped, reader = containers
    args = _vars(containers, "Arguments")
    assert _elements(reader, args["dts"]) == stopped.expected["dts"]
    assert _elements(reader, args["cz"]) == [repr(complex(r, i)) for r, i in stopped.expected["cz"]]


def test_float32_values_print_as_numpy_does(containers):
    stopped, reader = containers
    f32 = _vars(containers, "Arguments")["f32"]
    assert f32.type == "array(float32, 1d, C)"
    assert _elements(reader, f32) == stopped.expected["f32"] == ["0.1", "2.5", "-0.001"]


def test_unknown_frame_is_a_clear_error(containers):
    stopped, reader = containers
    with pytest.raises(JitValueError, match="cannot read frame 999"):
        reader.frame_scopes(stopped.thread_id, 999)
    # The reader still works afterwards.
    assert _vars(containers, "Locals")["acc"].value == "Acc(x=2.5, n=3)"


def test_large_array_is_paged(containers):
    stopped, reader = containers
    big = _vars(containers, "Arguments")["big"]
    expected = stopped.expected["big"]
    assert big.indexed_count == len(expected) == 2500
    page = reader.children(big.children, 1000, 100) if big.children else []
    assert [c.name for c in page] == [f"[{i}]" for i in range(1000, 1100)]
    assert [c.value for c in page] == [repr(x) for x in expected[1000:1100]]
    tail = reader.children(big.children, 2450, 100) if big.children else []
    assert len(tail) == 50 and tail[-1].value == repr(expected[-1])


# --- SSA versions and arguments in more shapes ----------------------------------------------------------


def test_reassigned_variables_show_the_newest_value():
    with _session("ssa_versions.py", "# STOP-A") as (stopped, reader):
        expected = stopped.expected["A"]
        scopes = {s.name: {v.name: v for v in s.variables} for s in reader.frame_scopes(stopped.thread_id, 0)}
        # x = 5, then x = y * 3 on a later line of the same block: the stale 5 must not show.
        assert scopes["Locals"]["x"].value == str(expected["x"])
        assert scopes["Locals"]["y"].value == str(expected["y"])
        # The argument n was re-assigned (n = n + 1): its live version, not what Python passed.
        assert scopes["Arguments"]["n"].value == str(expected["n"])


def test_loop_accumulator_after_the_loop():
    with _session("ssa_versions.py", "# STOP-B") as (stopped, reader):
        scopes = {s.name: {v.name: v for v in s.variables} for s in reader.frame_scopes(stopped.thread_id, 0)}
        acc = scopes["Locals"]["acc"]
        assert acc.available and acc.value == str(stopped.expected["B"]["acc"])
        for variable in (*scopes["Locals"].values(), *scopes["Arguments"].values()):
            # Whatever is not live is unavailable, never the 0 gdb reads.
            assert variable.value != "0" or variable.name == "acc"


def test_strings_and_tuples_passed_from_python_are_recovered():
    with _session("passed_objects.py") as (stopped, reader):
        args = {v.name: v for v in reader.frame_scopes(stopped.thread_id, 0)[0].variables}
        assert args["label"].value == stopped.expected["label"]
        assert args["word"].value == stopped.expected["word"]
        assert args["pair"].value == stopped.expected["pair"]
        assert args["pair"].type == "Tuple(int64, float64)"
        assert args["small"].value == "3"
        assert reader.evaluate(stopped.thread_id, 0, "pair[1] * 4", "watch").value == "1.0"


def test_callee_arguments_are_right_or_unavailable():
    with _session("callee.py") as (stopped, reader):
        assert stopped.frame["func"].startswith("__main__::inner")
        args = {v.name: v for v in reader.frame_scopes(stopped.thread_id, 0)[0].variables}
        expected = stopped.expected
        for name, value in (("v", repr(expected["v"])), ("k", str(expected["k"]))):
            assert args[name].value in (value, UNAVAILABLE), (name, args[name])
        assert args["k"].value != "0"


def test_values_at_every_stop_of_a_loop_belong_to_one_iteration():
    with _session("loop_iterations.py") as (stopped, reader):
        iterations = stopped.expected["iterations"]
        by_x = {repr(it["x"]): it for it in iterations}
        seen = []
        shown: set[str] = set()
        while True:
            local = {v.name: v for v in reader.frame_scopes(stopped.thread_id, 0)[1].variables}
            # x identifies the iteration (the doubled values are distinct).
            assert local["x"].available, local["x"]
            iteration = by_x[local["x"].value]
            seen.append(iteration["i"])
            for name in ("i", "best", "total"):
                variable = local[name]
                if variable.available:
                    shown.add(name)
                assert variable.value in (repr(iteration[name]), str(iteration[name]), UNAVAILABLE), (
                    iteration,
                    name,
                    variable,
                )
            reader.invalidate()
            if stopped.resume().get("reason") != "breakpoint-hit":
                break
        # Numba's line table puts this line's breakpoint where the loop passes at least once more.
        assert seen[0] == 0 and len(seen) >= 2 and seen == sorted(seen)
        # Not everything may be hidden: the running values do show (best through agreeing SSA copies).
        assert {"best", "total"} <= shown


def test_frame_in_a_worker_thread_keeps_gdb_selection():
    with _session("worker_thread.py") as (stopped, reader):
        assert stopped.thread_id != 1
        # Select another thread, as a user looking at the main thread would have.
        stopped.backend.execute("-thread-select 1")
        scopes = {s.name: {v.name: v for v in s.variables} for s in reader.frame_scopes(stopped.thread_id, 0)}
        assert scopes["Arguments"]["k"].value == str(stopped.expected["k"])
        assert scopes["Arguments"]["scale"].value == repr(stopped.expected["scale"])
        assert scopes["Locals"]["s"].value in (repr(stopped.expected["s"]), UNAVAILABLE)
        assert stopped.backend.execute("-thread-info")["current-thread-id"] == "1"


def test_locals_readable_where_a_jitted_function_crashed():
    path = PROGRAMS / "crash.py"
    stopped = run_to_line(path, 0, reason="signal-received")
    try:
        assert stopped.stops[-1].get("signal-name") == "SIGSEGV"
        assert stopped.frame["func"].startswith("__main__::fetch")
        assert int(stopped.frame["line"]) == stop_line(path, "# CRASH")
        reader = JitValueReader(stopped.backend)
        args = {v.name: v for v in reader.frame_scopes(stopped.thread_id, 0)[0].variables}
        assert args["index"].value == str(stopped.expected["index"])
        assert args["a"].value == "array(float64, 1d, C) shape=(10,)"
        assert [c.value for c in reader.children(args["a"].children)] == [
            repr(x) for x in stopped.expected["a"]
        ]
    finally:
        survivors = stopped.close()
    assert not survivors, f"left behind: {survivors}"


# --- type names (no gdb needed, but the strings are the ones gdb showed above) -----------------------


@pytest.mark.parametrize(
    ("dwarf", "kind", "text"),
    [
        (
            "array(float64, 1d, C) ({i8*, i8*, i64, i64, double*, [1 x i64], [1 x i64]})",
            "array",
            "array(float64, 1d, C)",
        ),
        ("complex128 ({double, double})", "complex", "complex128"),
        ("Tuple(int64, float64) ({i64, double})", "tuple", "Tuple(int64, float64)"),
        ("Point(float64 x 2) ([2 x double])", "tuple", "Point(float64 x 2)"),
        ("UniTuple(int64 x 1) ([1 x i64])", "tuple", "UniTuple(int64 x 1)"),
        ("unicode_type ({i8*, i64, i32, i32, i64, i8*, i8*})", "unicode", "unicode_type"),
        ("datetime64[D]", "datetime", "datetime64[D]"),
        ("ListType[float64] ({i8*, i8*})", "list", "ListType[float64]"),
        (
            "DictType[unicode_type,int64]<iv=None> ({i8*, i8*})",
            "dict",
            "DictType[unicode_type,int64]<iv=None>",
        ),
        ("Literal[int](7)", "int", "Literal[int](7)"),
        ("Optional(int64)", "unknown", "Optional(int64)"),
    ],
)
def test_dwarf_type_names_parse(dwarf, kind, text):
    parsed = parse_numba_type(dwarf)
    assert (parsed.kind, parsed.text) == (kind, text)


# --- decoding and the "ran before" rule, on data from NumPy and real source text ------------------------

_FLOAT_TYPES = {"float64": np.float64, "float32": np.float32}


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, width=32), st.sampled_from(["float64", "float32"]))
def test_float_bytes_decode_like_numpy_prints(value, type_name):
    scalar = _FLOAT_TYPES[type_name](value)
    text, decoded = decode_scalar(parse_numba_type(type_name), scalar.tobytes())
    assert decoded == float(scalar)
    # The text is the shortest one that reads back as the same value of that width, as NumPy prints it.
    assert _FLOAT_TYPES[type_name](float(text)) == scalar
    assert text == (repr(float(scalar)) if type_name == "float64" else repr(float(str(scalar))))


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_int64_and_complex_bytes_decode(value):
    text, decoded = decode_scalar(parse_numba_type("int64"), np.int64(value).tobytes())
    assert text == str(value) and decoded == value
    number = complex(value % 1000, -(value % 7))
    text, _ = decode_scalar(parse_numba_type("complex128"), np.complex128(number).tobytes())
    assert text == repr(number)


def test_bool_and_datetime_bytes_decode():
    assert decode_scalar(parse_numba_type("bool"), np.bool_(True).tobytes())[0] == "True"
    assert decode_scalar(parse_numba_type("bool"), np.bool_(False).tobytes())[0] == "False"
    day = np.datetime64("2021-06-15", "D")
    assert decode_scalar(parse_numba_type("datetime64[D]"), day.tobytes())[0] == "2021-06-15"
    assert decode_scalar(parse_numba_type("datetime64[D]"), np.datetime64("NaT", "D").tobytes())[0] == "NaT"


def test_ran_before_follows_statement_lists():
    source = (PROGRAMS / "ssa_versions.py").read_text()
    index = SourceIndex(source)
    lines = source.splitlines()

    def line_of(text: str) -> int:
        return next(i for i, line in enumerate(lines, start=1) if line.strip().startswith(text))

    x_again, stop_a = line_of("x = y * 3"), line_of("w = y + n")
    acc_in_loop, stop_b = line_of("acc += i * 2"), line_of("x = acc + w")
    assert index.ran_before(x_again, stop_a)  # same block, earlier: surely ran
    assert not index.ran_before(stop_a, x_again)  # later line
    assert not index.ran_before(acc_in_loop, stop_b)  # inside the loop body: not surely (maybe 0 times)
    assert index.ran_before(line_of("acc = 0"), acc_in_loop)  # before the loop, seen from inside it
