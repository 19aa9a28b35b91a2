"""Faults in user code become `analysis-failed` diagnostics; the engine recovers; no process is left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest
from analysis_helpers import by_code

from pyserver.analysis.engine import AnalysisEngine, AnalysisUnavailable

GOOD = """
from numba import njit

@njit
def good(x: int):
    return x + 1
"""


def _gone(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.1)
    return False


def _write(root: Path, name: str, source: str) -> Path:
    path = root / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


@pytest.fixture
def engine(tmp_path: Path):
    # loading="full": these faults are in top-level code, which the default definitions-only loading
    # does not run (tests/analysis/test_definitions_loading.py shows that).
    engine = AnalysisEngine(tmp_path, timeout_s=4.0, loading="full")
    yield engine
    pid = engine.worker_pid
    engine.close()
    if pid is not None:
        assert _gone(pid), "the worker outlived close()"


def _check_good(engine: AnalysisEngine, root: Path) -> None:
    result = engine.analyze(_write(root, "good.py", GOOD))
    assert result.status == "ok" and result.diagnostics == []
    assert result.functions[0].signatures[0].return_type == "int64"


def test_infinite_loop_at_import_times_out_and_the_worker_is_recycled(engine, tmp_path: Path) -> None:
    engine.start()
    first_pid = engine.worker_pid
    path = _write(
        tmp_path,
        "loops.py",
        """
        from numba import njit

        @njit
        def f(x: int):
            return x

        while True:
            pass
        """,
    )
    started = time.monotonic()
    result = engine.analyze(path)
    assert time.monotonic() - started < 40
    (failure,) = by_code(result, "analysis-failed")
    assert "time-out after 4 s" in failure.message
    # where the worker was stuck (from its faulthandler dump): the loop
    assert failure.range.start.line + 1 in (8, 9)
    assert first_pid is not None and _gone(first_pid)
    # The definitions alone were then loaded in a fresh worker, and the function was checked anyway.
    assert result.status == "partial"
    assert result.skipped_statements == [8]
    assert "imports and definitions (1 top-level statement skipped)" in failure.message
    (function,) = result.functions
    assert function.name == "f" and function.signatures[0].ok
    _check_good(engine, tmp_path)
    assert engine.worker_pid not in (None, first_pid)

    # Next time, with the same code at import (only a function body edited), no second time-out.
    source = path.read_text().replace("return x", "return x * 2")
    started = time.monotonic()
    again = engine.analyze(path, source)
    assert time.monotonic() - started < 4
    assert again.status == "partial" and by_code(again, "analysis-failed")
    assert again.functions[0].signatures[0].return_type == "int64"
    view = engine.ir_view(path, source, "f", 0, "types")  # definitions only: the loop does not run
    assert "def f(x: int):" in view.text
    # Once the loop is gone, the module loads normally again.
    fixed = engine.analyze(path, source.replace("while True:\n    pass\n", ""))
    assert fixed.status == "ok" and fixed.diagnostics == [] and fixed.skipped_statements == []


def _doubling_chain(depth: int) -> str:
    """A small module whose last function Numba types slowly: each level inlines the one below twice
    (2**depth copies of the first), while the module loads at once."""
    lines = [
        "from numba import njit",
        "",
        "",
        "@njit(inline='always')",
        "def f0(x):",
        "    return x * 1.0001 + 1.0",
    ]
    for level in range(1, depth + 1):
        lines += [
            "",
            "",
            "@njit(inline='always')",
            f"def f{level}(x):",
            f"    return f{level - 1}(f{level - 1}(x))",
        ]
    lines += ["", "", "@njit", "def deep(x: float):", f"    return f{depth}(x)", ""]
    return "\n".join(lines)


def test_typing_slower_than_the_time_out_is_a_warning_that_says_where_it_stopped(tmp_path: Path) -> None:
    """The module loaded (no code of it is at fault) and typing its functions outlasted the time-out: a
    warning on the function being typed, its functions listed unchecked, and no second run."""
    engine = AnalysisEngine(tmp_path, timeout_s=3.0)
    try:
        path = tmp_path / "deep.py"
        source = _doubling_chain(15)  # typing `deep` takes about 40 s here; loading, milliseconds
        path.write_text(source)
        started = time.monotonic()
        result = engine.analyze(path)
        assert time.monotonic() - started < 30  # stopped at the time-out, and not run again
        assert not by_code(result, "analysis-failed")
        (slow,) = by_code(result, "analysis-time-out")
        assert slow.severity == "warning"
        assert "while typing `deep(float64)`" in slow.message and "3 s" in slow.message
        assert slow.range.start.line + 1 == source.splitlines().index("def deep(x: float):") + 1
        assert "deep" in {f.name for f in result.functions} and not any(
            f.signatures for f in result.functions
        )
        _check_good(engine, tmp_path)  # a fresh worker answers the next file
    finally:
        engine.close()


def test_a_hang_the_definitions_need_stays_a_failure(engine, tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "needs_hang.py",
        """
        from numba import njit

        def slow():
            while True:
                pass

        N = slow()

        @njit
        def f(x: int):
            return x + N
        """,
    )
    result = engine.analyze(path)
    (failure,) = by_code(result, "analysis-failed")
    # The retry leaves out `N = slow()`; f reads N, which never got a value: f is listed but not checked
    # (no error about an undefined N: that would be the analysis's doing, not the code's), and the module
    # counts as not loaded (the editor keeps f's earlier types, labelled).
    assert result.status == "failed" and "time-out" in failure.message
    assert [(s.line, s.reason) for s in result.skipped] == [
        (8, "it did not finish when it last ran (a time-out or a crash)")
    ]
    assert [d.code for d in result.diagnostics] == ["analysis-failed"]
    assert [f.name for f in result.functions] == ["f"]
    assert result.functions[0].signatures == []
    _check_good(engine, tmp_path)


def test_segfault_at_import(engine, tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "segfaults.py",
        """
        import ctypes
        from numba import njit

        @njit
        def f(x: int):
            return x

        ctypes.string_at(0)
        """,
    )
    result = engine.analyze(path)
    (failure,) = by_code(result, "analysis-failed")
    assert "crashed" in failure.message and "SIGSEGV" in failure.message
    assert failure.range.start.line + 1 == 9
    assert result.status == "partial" and result.skipped_statements == [9]
    assert result.functions[0].signatures[0].ok
    _check_good(engine, tmp_path)


def test_syntax_error(engine, tmp_path: Path) -> None:
    path = _write(tmp_path, "syntax.py", "from numba import njit\n\n@njit\ndef f(x:\n    return x\n")
    result = engine.analyze(path)
    (failure,) = by_code(result, "analysis-failed")
    assert "syntax error" in failure.message
    assert failure.range.start.line + 1 in (4, 5)
    _check_good(engine, tmp_path)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import math\n\nimport numpy as np\nfrom", (3, 3, 4)),  # the `m` of the truncated `from`
        ("from numba import njit\n\n\n@njit\ndef f(n: int):\n    lst =", (5, 8, 9)),  # the `=`
        ("from numba import njit\r\nx = (1,\r\n", (1, 4, 5)),  # the `(` never closed
    ],
    ids=["from", "assignment", "crlf"],
)
def test_a_syntax_error_at_the_end_of_a_line_stays_inside_the_line(
    engine, tmp_path: Path, source: str, expected: tuple[int, int, int]
) -> None:
    path = tmp_path / "truncated.py"
    path.write_bytes(source.encode())
    for result in (engine.analyze(path, source), engine.analyze(path)):
        (failure,) = result.diagnostics
        assert "syntax error" in failure.message
        r = failure.range
        assert (r.start.line, r.start.character, r.end.character) == expected and r.end.line == r.start.line


def test_what_a_module_forks_or_spawns_at_import_ends_with_the_worker(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "forks.py",
        """
        import os
        import subprocess
        import time
        from numba import njit

        if os.fork() == 0:  # a forked copy of the worker
            time.sleep(300)
            os._exit(0)
        helper = subprocess.Popen(["sleep", "300"])

        @njit
        def f(x: int):
            return x
        """,
    )
    engine = AnalysisEngine(tmp_path, timeout_s=60.0, loading="full")
    try:
        result = engine.analyze(path)
        assert result.status == "ok" and result.functions[0].signatures[0].ok
        assert engine.worker_pid is not None
        spawned = psutil.Process(engine.worker_pid).children(recursive=True)
        assert len(spawned) >= 2, spawned  # the fork and `sleep`
        engine.recycle()  # as after a time-out or a crash
        assert all(_gone(child.pid) for child in spawned), [
            c.pid for c in spawned if psutil.pid_exists(c.pid)
        ]
        assert engine.analyze(path).status == "ok"
        spawned = psutil.Process(engine.worker_pid).children(recursive=True)
    finally:
        engine.close()
    assert all(_gone(child.pid) for child in spawned), "what the module started outlived engine.close()"


def test_non_utf8_file(engine, tmp_path: Path) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes(b"from numba import njit\n# caf\xe9\n@njit\ndef f(x: int):\n    return x\n")
    result = engine.analyze(path)
    (failure,) = by_code(result, "analysis-failed")
    assert "not valid text" in failure.message
    # With a coding cookie the same bytes are a valid module.
    declared = tmp_path / "declared.py"
    declared.write_bytes(
        b"# -*- coding: latin-1 -*-\nfrom numba import njit\n# caf\xe9\n@njit\ndef f(x: int):\n    return x\n"
    )
    result = engine.analyze(declared)
    assert result.status == "ok" and result.diagnostics == []


def test_import_error_keeps_the_functions_defined_before_it(engine, tmp_path: Path) -> None:
    source = """
        from numba import njit

        @njit
        def before(x: int):
            return x + (1, 2)

        import no_such_module_anywhere

        @njit
        def after(x: int):
            return x
        """
    result = engine.analyze(_write(tmp_path, "import_error.py", source))
    (failure,) = by_code(result, "analysis-failed")
    assert "ModuleNotFoundError" in failure.message and failure.range.start.line + 1 == 8
    assert [d.function for d in by_code(result, "typing-error")] == ["before"]
    # The definitions-only retry goes on past the failing import (and says so): `after` is checked too.
    assert "1 top-level statement skipped" in failure.message
    assert [(s.line, s.reason[:30]) for s in result.skipped] == [(8, "it raised ModuleNotFoundError:")]
    after = next(f for f in result.functions if f.name == "after")
    assert [s.return_type for s in after.signatures] == ["int64"]


def test_ten_thousand_line_file(engine, tmp_path: Path) -> None:
    parts = ["import numpy as np", "from numba import njit", ""]
    for index in range(60):
        parts += [
            "@njit",
            f"def kernel_{index}(a: 'float64[:]', n: int):",
            "    total = 0.0",
            "    for i in range(n):",
            f"        total += a[i] * {index}.0",
            "    return total",
            "",
        ]
    filler = 0
    while len(parts) < 10_000:
        parts += [f"def plain_{filler}(x):", f"    return x + {filler}", ""]
        filler += 1
    parts += ["@njit", "def last(x: int):", "    return x + (1, 2)", ""]
    source = "\n".join(parts)
    assert len(source.splitlines()) >= 10_000
    engine.timeout_s = 120.0
    result = engine.analyze(_write(tmp_path, "big.py", source))
    assert result.status == "ok"
    (error,) = by_code(result, "typing-error")
    assert error.function == "last" and error.range.start.line + 1 == len(source.splitlines())
    assert sum(1 for f in result.functions if f.signatures and f.signatures[0].ok) == 60


def test_cancel_abandons_the_run(engine, tmp_path: Path) -> None:
    engine.timeout_s = 60.0
    path = _write(
        tmp_path,
        "slow.py",
        "import time\nfrom numba import njit\n\n@njit\ndef f(x: int):\n    return x\n\ntime.sleep(50)\n",
    )
    engine.start()
    timer = threading.Timer(1.5, engine.cancel)
    timer.start()
    started = time.monotonic()
    result = engine.analyze(path)
    assert result.status == "cancelled" and result.diagnostics == []
    assert time.monotonic() - started < 15
    _check_good(engine, tmp_path)


def test_memory_limit(tmp_path: Path) -> None:
    engine = AnalysisEngine(tmp_path, timeout_s=30.0, memory_limit_mb=700, loading="full")
    try:
        engine.start()
        pid = engine.worker_pid
        path = _write(tmp_path, "hog.py", "import time\nblob = b'x' * (900 * 1024 * 1024)\ntime.sleep(20)\n")
        result = engine.analyze(path)
        (failure,) = by_code(result, "analysis-failed")
        assert "700 MB" in failure.message
        assert pid is not None and _gone(pid)
        _check_good(engine, tmp_path)
    finally:
        engine.close()


def test_untrusted_workspace_executes_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "executed.txt"
    path = _write(
        tmp_path,
        "side_effect.py",
        f"""
        from numba import njit
        open({str(marker)!r}, "w").write("ran")

        @njit
        def f(x: int):
            return x
        """,
    )
    # A cache index file that would be unpickled in a trusted workspace.
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "side_effect.f-5.py311.nbi").write_bytes(b"not a pickle")
    engine = AnalysisEngine(tmp_path, trusted=False)
    try:
        result = engine.analyze(path)
        assert result.status == "untrusted" and result.diagnostics == []
        assert [f.name for f in result.functions] == ["f"]
        assert engine.worker_pid is None
        with pytest.raises(AnalysisUnavailable):
            engine.ir_view(path, None, "f", 0, "llvm")
        with pytest.raises(AnalysisUnavailable):
            engine.start()
    finally:
        engine.close()
    assert not marker.exists()


def test_worker_dies_with_its_parent(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from pyserver.analysis.engine import AnalysisEngine
        engine = AnalysisEngine({str(tmp_path)!r})
        engine.start()
        print(engine.worker_pid, flush=True)
        time.sleep(120)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        worker_pid = int(parent.stdout.readline())
        assert psutil.pid_exists(worker_pid)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        assert _gone(worker_pid), "the worker outlived its killed parent"
    finally:
        if parent.poll() is None:
            parent.kill()


def test_close_from_another_thread_ends_the_run_in_flight(tmp_path: Path) -> None:
    engine = AnalysisEngine(tmp_path, timeout_s=60.0, loading="full")
    engine.start()
    pid = engine.worker_pid
    path = _write(tmp_path, "sleeps.py", "import time\ntime.sleep(50)\n")
    timer = threading.Timer(1.0, engine.close)
    timer.start()
    result = engine.analyze(path)
    assert result.status == "cancelled" and result.diagnostics == []
    assert pid is not None and _gone(pid)
    after = engine.analyze(_write(tmp_path, "good.py", GOOD))
    assert after.status == "failed" and "closed" in after.diagnostics[0].message


def test_an_exception_at_import_still_checks_the_definitions(engine, tmp_path: Path) -> None:
    source = """
        from numba import njit

        rows = open("missing-data.csv").read().splitlines()

        @njit
        def after(x: int):
            return x + (1, 2)
        """
    result = engine.analyze(_write(tmp_path, "reads_data.py", source))
    (failure,) = by_code(result, "analysis-failed")
    assert "FileNotFoundError" in failure.message and failure.range.start.line + 1 == 4
    assert "1 top-level statement skipped" in failure.message
    assert result.status == "partial" and result.skipped_statements == [4]
    assert [d.function for d in by_code(result, "typing-error")] == ["after"]
