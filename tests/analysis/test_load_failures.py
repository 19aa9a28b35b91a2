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


def test_a_failed_load_keeps_the_time_its_third_party_imports_took(tmp_path: Path) -> None:
    """A module that imports a third-party module, then fails: the import's time is still the
    third-party time (`check` leaves it out of the analysis's own), though the load that counts is the
    definitions-only one that follows."""
    path = tmp_path / "plotting.py"
    path.write_text(
        textwrap.dedent(
            """\
            import xml.dom.minidom

            import not_installed_plotting_backend_xyz
            from numba import njit


            @njit
            def scale(x: float):
                return x * 2.0
            """
        )
    )
    engine = AnalysisEngine(tmp_path, timeout_s=60.0)
    try:
        result = engine.analyze(path)
    finally:
        engine.close()
    assert result.status == "partial" and result.diagnostics[0].code == "analysis-failed"
    assert result.third_party_import_ms > 0 and result.third_party_import_cpu_ms > 0
