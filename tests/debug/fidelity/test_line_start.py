"""Frame 0 at a breakpoint stands where its line starts; after a Step Out (gdb's `finish`) it stands
inside the call's line, where Numba's IR state at the line's start (live_versions) no longer holds:
the value reader then keeps to its other rules (values_gdb.py `_at_line_start`)."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "values_programs"))

from harness import run_to_line  # noqa: E402

from pyserver.debug.gdb.mi import exec as mi_exec  # noqa: E402
from pyserver.debug.values import JitValueReader  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")


def test_a_breakpoint_stands_at_the_line_start_and_a_step_out_inside_the_line() -> None:
    program = HERE / "programs" / "step_out.py"
    line = next(n for n, text in enumerate(program.read_text().splitlines(), 1) if "w = v * f" in text)
    stopped = run_to_line(program, line)
    try:
        reader = JitValueReader(stopped.backend)
        assert reader._report(stopped.thread_id, 0).at_line_start
        seen = len(stopped.stops)
        mi_exec.exec_finish(stopped.backend, str(stopped.thread_id), 0)
        deadline = time.monotonic() + 60
        while len(stopped.stops) == seen and time.monotonic() < deadline:
            time.sleep(0.02)
        assert stopped.stops[-1].get("reason") == "function-finished"
        reader.invalidate()
        report = reader._report(stopped.thread_id, 0)
        assert "run" in report.function and not report.at_line_start
    finally:
        assert not stopped.close()
