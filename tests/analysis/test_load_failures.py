"""A module-level statement that fails says what failed in words a person reads (the exception type, the
statement and its line; for an empty AssertionError, the assertion), and `f.disable_compile()` after a
decorator with explicit signatures (recorded, not compiled, while the analysis loads) does not fail."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pyserver.analysis.engine import AnalysisEngine

SOURCE = textwrap.dedent(
    """\
    from numba import jit


    @jit("(uint32,)")
    def f(x):
        return x + 1


    f.disable_compile()


    def helper():
        assert 1 == 2


    @jit
    def g(x: float):
        return x * 2.0


    HELPER_VALUE = helper()


    @jit
    def h(x: float):
        return x + HELPER_VALUE
    """
)


def test_disable_compile_after_explicit_signatures_and_an_empty_assertion(tmp_path: Path) -> None:
    path = tmp_path / "disabled.py"
    path.write_text(SOURCE)
    engine = AnalysisEngine(tmp_path, timeout_s=60.0, loading="full")
    try:
        result = engine.analyze(path)
    finally:
        engine.close()
    (failure,) = result.diagnostics
    assert failure.code == "analysis-failed"
    assert "AssertionError: `assert 1 == 2` failed (disabled.py:13)" in failure.message
    assert "reached from `HELPER_VALUE = helper()` (line 21)" in failure.message
    assert "disable_compile" not in failure.message  # it did not fail
    typed = {function.name: [s.args for s in function.signatures] for function in result.functions}
    assert typed["f"] == [["uint32"]] and typed["g"] == [["float64"]] and typed["h"] == []
