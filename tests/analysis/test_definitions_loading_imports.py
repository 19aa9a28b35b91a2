"""Only the file's own work counts against its time-out: importing a module from outside
the workspace (a package that compiles its explicit signatures at import, such as pynndescent) stops the
file's clock."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from pyserver.analysis.engine import AnalysisEngine

SLOW_IMPORT_S = 6.0
TIMEOUT_S = 3.0

FILE = textwrap.dedent(
    """\
    import slowlib
    from numba import njit


    @njit
    def scaled(x: float):
        return x * slowlib.FACTOR
    """
)


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A third-party module (outside the workspace, on PYTHONPATH) that takes 6 s to import."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "slowlib.py").write_text(f"import time\n\ntime.sleep({SLOW_IMPORT_S})\nFACTOR = 2.0\n")
    monkeypatch.setenv("PYTHONPATH", str(site))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "uses_slowlib.py").write_text(FILE)
    return workspace


def test_a_slow_third_party_import_does_not_count_against_the_time_out(outside: Path) -> None:
    engine = AnalysisEngine(outside, timeout_s=TIMEOUT_S)
    try:
        engine.start()
        started = time.monotonic()
        result = engine.analyze(outside / "uses_slowlib.py")
        took = time.monotonic() - started
    finally:
        engine.close()
    assert took > SLOW_IMPORT_S  # the import really ran, longer than the time-out ...
    assert result.status == "ok" and result.diagnostics == []  # ... and the file was not timed out
    assert result.third_party_import_ms >= SLOW_IMPORT_S * 1000
    (function,) = result.functions
    assert [(s.args, s.return_type) for s in function.signatures] == [(["float64"], "float64")]


def test_the_same_slowness_in_the_file_itself_still_times_out(outside: Path) -> None:
    # Slow work no rule sees before it runs (a `time.sleep` would be an effect: not run at all).
    (outside / "slow_itself.py").write_text(
        "import time\nfrom numba import njit\n\nDELAY = sum(range(10**10))\n\n\n@njit\ndef f(x: float):\n"
        "    return x + (DELAY is None)\n"
    )
    engine = AnalysisEngine(outside, timeout_s=TIMEOUT_S)
    try:
        result = engine.analyze(outside / "slow_itself.py")
    finally:
        engine.close()
    assert [d.code for d in result.diagnostics][:1] == ["analysis-failed"]
    assert "time-out" in result.diagnostics[0].message and result.third_party_import_ms == 0.0


def test_pynndescent_compiling_at_import_is_not_the_files_work(tmp_path: Path) -> None:
    # pynndescent compiles its explicit signatures when it is imported (21 s on a cold cache here, 2-6 s
    # warm): a file that imports it is typed whatever that costs, and the cost is reported apart.
    pytest.importorskip("pynndescent")
    (tmp_path / "uses_pynndescent.py").write_text(
        "import pynndescent\nfrom numba import njit\n\n\n@njit\ndef f(x: float):\n    return x + 1.0\n"
    )
    engine = AnalysisEngine(tmp_path, timeout_s=TIMEOUT_S)
    try:
        engine.start()
        result = engine.analyze(tmp_path / "uses_pynndescent.py")
    finally:
        engine.close()
    print(f"pynndescent import in the worker: {result.third_party_import_ms / 1000:.1f} s (not counted)")
    assert result.status == "ok" and result.diagnostics == [], result.diagnostics
    assert result.third_party_import_ms > 0


def test_a_third_party_imports_cpu_time_is_reported_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CPU time an import from outside the workspace takes is reported apart (check's timing leaves it
    out of the analysis's own work): a module that works 0.4 s of CPU at import is seen as at least that."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "busylib.py").write_text(
        "import time\n\nstarted = time.thread_time()\nwhile time.thread_time() - started < 0.4:\n    pass\n"
        "FACTOR = 2.0\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(site))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "uses_busylib.py").write_text(FILE.replace("slowlib", "busylib"))
    engine = AnalysisEngine(workspace, timeout_s=30.0)
    try:
        engine.start()
        result = engine.analyze(workspace / "uses_busylib.py")
    finally:
        engine.close()
    assert result.status == "ok" and result.diagnostics == [], result.diagnostics
    assert result.third_party_import_cpu_ms >= 400
    assert result.third_party_import_ms >= result.third_party_import_cpu_ms * 0.99  # wall covers CPU
