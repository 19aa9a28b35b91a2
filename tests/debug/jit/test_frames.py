"""Jitted frame names and frame classes, on names captured from real gdb."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).resolve().parents[1] / "values_programs"
sys.path.insert(0, str(PROGRAMS))

from harness import run_to_line  # noqa: E402

from pyserver.debug.jit.frames import (  # noqa: E402
    c_type_to_numba,
    classify_frame,
    is_numba_library_frame,
    parse_jit_frame_name,
)

# As gdb 13 names an array expression's generated kernel and a Numba library function compiled with the user's
# code (tests/debug/programs/array_expr.py): the kernel's debug info claims the user's file, at line 1.
ARRAY_EXPR_KERNEL_FRAME = {
    "func": "_3cdynamic_3e::__numba_array_expr_0x7fffdd0642d0[abi:v5][abi:c8tJTC_2fWwGaMLSgd6CjA4xXKR0tsqKIYSQsmjfC9LThg"
    "geGLFtVQlYhUhSSAmlJgEkUQ0zUB](double, double)",
    "file": "array_expr.py",
    "fullname": "/work/tests/debug/programs/array_expr.py",
    "line": "1",
}
NUMBA_LIBRARY_FRAME = {
    "func": "numba::np::npyimpl::_broadcast_onto[abi:v6][abi:c8tJTC_2fWQA93W1AaAIYB](long long, long long*, long long, "
    "long long*)",
    "file": "npyimpl.py",
    "fullname": "/venv/lib/python3.11/site-packages/numba/np/npyimpl.py",
    "line": "350",
}
KERNEL_NAME = "__main__::kernel[abi:v1][abi:c8tJTC_2fWwGaMLSgd6CjA4xXKR0tsqKIYSQsqDQwVMEsTAA_3d_3d](Array<double, 1, C, mutable, aligned>, long long)"


def test_design_example():
    parsed = parse_jit_frame_name(KERNEL_NAME)
    assert parsed is not None
    assert parsed.module == "__main__" and parsed.name == "kernel" and not parsed.wrapper
    assert parsed.arg_types == ("array(float64, 1d, C)", "int64")
    assert parsed.display == "kernel(array(float64, 1d, C), int64)"
    wrapper = parse_jit_frame_name("cpython::" + KERNEL_NAME)
    assert wrapper is not None and wrapper.wrapper and wrapper.display == parsed.display


@pytest.mark.parametrize(
    ("c_type", "numba"),
    [
        ("long long", "int64"),
        ("double", "float64"),
        ("int", "int32"),
        ("bool", "bool"),
        ("float", "float32"),
        ("unsigned char", "uint8"),
        ("complex128", "complex128"),
        ("complex64", "complex64"),
        ("Array<double, 2, F, readonly, aligned>", "readonly array(float64, 2d, F)"),
        ("Array<complex128, 1, A, mutable, aligned>", "array(complex128, 1d, A)"),
        ("Array<datetime64_5bD_5d, 1, C, mutable, aligned>", "array(datetime64[D], 1d, C)"),
        ("UniTuple<long long, 2>", "UniTuple(int64 x 2)"),
        ("Tuple<long long, double>", "Tuple(int64, float64)"),
        ("ListType_5bfloat64_5d", "ListType[float64]"),
        ("unicode_type", "unicode_type"),
        # A record's mangled name holds Numba's internal type id only, never shown as if it meant something.
        ("Record<2662>", "Record(...)"),
        ("Array<Record<382>, 1, C, mutable, unaligned>", "unaligned array(Record(...), 1d, C)"),
        # Unknown forms stay as gdb wrote them.
        ("SomeThing<weird, 3>", "SomeThing<weird, 3>"),
    ],
)
def test_c_types_map_to_numba_types(c_type, numba):
    assert c_type_to_numba(c_type) == numba


def test_escaped_identifiers_are_decoded_only_where_unambiguous():
    parsed = parse_jit_frame_name("pkg::mod::cache_data[abi:v3](double)")
    assert parsed is not None
    assert (parsed.module, parsed.name, parsed.display) == ("pkg.mod", "cache_data", "cache_data(float64)")


@pytest.mark.parametrize(
    ("frame", "kind"),
    [
        ({"func": KERNEL_NAME, "file": "prog.py", "line": "8"}, "jit"),
        ({"func": "cpython::" + KERNEL_NAME}, "wrapper"),
        ({"func": "compile_and_invoke", "file": "numba/_dispatcher.cpp", "line": "1222"}, "dispatcher"),
        ({"func": "Dispatcher_call", "file": "numba/_dispatcher.cpp", "line": "1459"}, "dispatcher"),
        ({"func": "_PyEval_EvalFrameDefault", "file": "Python/ceval.c", "line": "4769"}, "python-eval"),
        ({"func": "_PyObject_MakeTpCall", "file": "Objects/call.c", "line": "214"}, "cpython"),
        ({"func": "numba_gdb_breakpoint", "from": "/x/numba/_helperlib.so"}, "other"),
        ({"func": "__numba_array_expr_0x7f2a1c0[abi:v5](double, double)", "line": "12"}, "other"),
        ({"func": "main", "file": "Programs/python.c", "line": "15"}, "cpython"),
        ({"func": "__libc_start_main", "from": "/lib/x86_64-linux-gnu/libc.so.6"}, "other"),
    ],
)
def test_classify_literal_frames(frame, kind):
    assert classify_frame(frame) == kind


def test_generated_kernels_and_numba_library_code_are_not_user_code():
    assert classify_frame(ARRAY_EXPR_KERNEL_FRAME) == "other"
    # Numba's library code is real jitted code with real sources, told apart by its module.
    assert classify_frame(NUMBA_LIBRARY_FRAME) == "jit" and is_numba_library_frame(NUMBA_LIBRARY_FRAME)
    assert not is_numba_library_frame({"func": KERNEL_NAME, "file": "prog.py", "line": "8"})
    assert not is_numba_library_frame({"func": "pkg::numba_tools::walk[abi:v1](double)", "line": "3"})


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")
def test_real_stack_of_nested_jitted_calls():
    stopped = run_to_line(PROGRAMS / "callee.py")
    try:
        stack = stopped.backend.execute(f"-stack-list-frames --thread {stopped.thread_id}")["stack"]
    finally:
        survivors = stopped.close()
    assert not survivors, f"left behind: {survivors}"
    kinds = [classify_frame(frame) for frame in stack]
    # inner <- outer (both jitted, no wrapper between) <- outer's cpython:: wrapper <- dispatcher <- CPython
    assert kinds[:4] == ["jit", "jit", "wrapper", "dispatcher"], kinds
    assert "python-eval" in kinds
    first_eval = kinds.index("python-eval")
    assert all(kind in ("dispatcher", "cpython") for kind in kinds[3:first_eval]), kinds
    inner = parse_jit_frame_name(stack[0]["func"])
    outer = parse_jit_frame_name(stack[1]["func"])
    wrapper = parse_jit_frame_name(stack[2]["func"])
    assert inner is not None and inner.display == "inner(float64, int64)"
    assert outer is not None and outer.display == "outer(array(float64, 1d, C), int64)"
    assert wrapper is not None and wrapper.wrapper and wrapper.display == outer.display
    assert inner.module == outer.module == "__main__"
    # Nothing from CPython or the dispatcher is taken for a jitted function.
    for frame in stack[3:]:
        assert parse_jit_frame_name(str(frame.get("func", ""))) is None


def test_names_carry_no_heap_address_and_defaults_as_in_source() -> None:
    """Frame names as gdb 13 prints them: a jitclass argument carries the class's heap
    address and fields, an omitted argument Numba's `omitted(default=...)` with `1.0` split into
    scopes (`1::_0`). The call stack shows the class name and the default as the source spells it."""
    scale = parse_jit_frame_name(
        "__main__::scale[abi:v6][abi:c8tJTC_2fWwGaMLSgd6CjA4xXKR0tsqKIYSQsqDQwVMEsTAA_3d_3d]"
        "(double, omitted_28default_3d1::_0_29, omitted_28default_3d_27a_27_29)"
    )
    assert scale is not None and scale.display == "scale(float64, 1.0, 'a')"
    area = parse_jit_frame_name(
        "__main__::area[abi:v5][abi:c8tJTC_2fWwGaMLSgd6CjA4xXKR0tsqKIYSQsqDQwVMEsTAA_3d_3d]"
        "(instance::jitclass::Box_237fffe4442610_3cwidth_3afloat64_2cheight_3afloat64_3e, "
        "Array<Record<2035>, 1, C, mutable, unaligned>)"
    )
    assert area is not None and area.display == "area(Box, unaligned array(Record(...), 1d, C))"
