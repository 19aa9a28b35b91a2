"""Which lines of a source the mixed session gives to gdb: jitted functions only, never an @overload's
typing function (it runs in Python while Numba types a call)."""

from __future__ import annotations

from pathlib import Path

from session_doubles import build_session

from pyserver.debug.session.breakpoints import jitted_functions

SOURCE = """\
import numpy as np
from numba import njit
from numba.extending import overload


def clip_py(x, lo, hi):
    return min(max(x, lo), hi)


@overload(clip_py)
def clip_impl(x, lo, hi):
    def impl(x, lo, hi):
        return min(max(x, lo), hi)

    return impl


@njit
def total(a):
    s = 0.0
    for v in a:
        s += clip_py(v, 0.0, 1.0)
    return s
"""


def test_overload_typing_function_lines_stay_python(tmp_path: Path) -> None:
    path = tmp_path / "clip.py"
    path.write_text(SOURCE, encoding="utf-8")
    functions = jitted_functions(str(path), print)
    assert [f.name for f in functions] == ["total"]
    line = SOURCE.splitlines().index("    def impl(x, lo, hi):") + 1
    assert not any(f.def_line <= line <= f.end_line for f in functions)


def test_only_mixed_mode_routes_lines_to_gdb(tmp_path: Path) -> None:
    path = tmp_path / "clip.py"
    path.write_text(SOURCE, encoding="utf-8")
    mixed, _jit = build_session(with_gdb=True)
    assert [f.name for f in mixed.breakpoints.jitted_functions(str(path))] == ["total"]
    python_mode, _ = build_session(with_gdb=False)
    assert python_mode.breakpoints.jitted_functions(str(path)) == []
