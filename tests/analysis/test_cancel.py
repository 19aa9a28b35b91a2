"""engine.cancel() semantics: it abandons the analyze()/ir_view() call in progress, whatever stage that call
is in (worker start-up included); a cancel with no call in progress is dropped, never carried over to a
later call."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from pyserver.analysis.engine import AnalysisEngine

GOOD = "from numba import njit\n\n@njit\ndef good(x: int):\n    return x + 1\n"


def _analyze_in_thread(engine: AnalysisEngine, path: Path) -> tuple[threading.Thread, list[object]]:
    box: list[object] = []
    thread = threading.Thread(target=lambda: box.append(engine.analyze(path)))
    thread.start()
    return thread, box


def _wait_for_call(engine: AnalysisEngine, within_s: float = 10.0) -> None:
    deadline = time.monotonic() + within_s
    while not engine.calls_in_progress and time.monotonic() < deadline:
        time.sleep(0.005)
    assert engine.calls_in_progress, "analyze() did not start"


def test_a_cancel_while_the_worker_starts_abandons_that_call(tmp_path: Path) -> None:
    path = tmp_path / "good.py"
    path.write_text(GOOD)
    engine = AnalysisEngine(tmp_path, timeout_s=60.0)
    try:
        thread, box = _analyze_in_thread(engine, path)  # the worker starts inside this call (seconds)
        _wait_for_call(engine)
        engine.cancel()
        thread.join(timeout=180)
        (result,) = box
        assert result.status == "cancelled" and result.diagnostics == []  # type: ignore[attr-defined]
        pid = engine.worker_pid
        assert pid is not None, "the started worker is kept for the next call"
        after = engine.analyze(path)
        assert after.status == "ok" and [f.name for f in after.functions if f.signatures] == ["good"]
        assert engine.worker_pid == pid
    finally:
        engine.close()


def test_a_cancel_with_no_call_in_progress_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "good.py"
    path.write_text(GOOD)
    engine = AnalysisEngine(tmp_path, timeout_s=60.0)
    try:
        engine.cancel()  # before the worker exists
        engine.start()
        engine.cancel()  # between calls
        result = engine.analyze(path)
        assert result.status == "ok" and result.functions[0].signatures[0].ok
        engine.cancel()
        view = engine.ir_view(path, None, "good", 0, "numba_ir")
        assert "good" in view.function
    finally:
        engine.close()


def test_a_cancel_between_the_hang_and_the_definitions_only_retry_is_not_lost(tmp_path: Path) -> None:
    # A module that hangs at import: after the time-out the engine retries with definitions only. A cancel
    # arriving at any point of that call abandons it (no time-out diagnostic, no partial result).
    path = tmp_path / "hangs.py"
    path.write_text("import time\n" + GOOD + "\nwhile True:\n    time.sleep(0.1)\n")
    engine = AnalysisEngine(tmp_path, timeout_s=3.0, loading="full")  # the hang is top-level code
    try:
        engine.start()
        thread, box = _analyze_in_thread(engine, path)
        _wait_for_call(engine)
        time.sleep(3.5)  # past the time-out: the worker is being replaced for the retry
        engine.cancel()
        thread.join(timeout=180)
        (result,) = box
        assert result.status == "cancelled", result  # type: ignore[attr-defined]
    finally:
        engine.close()
