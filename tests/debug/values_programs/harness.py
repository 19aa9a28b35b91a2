"""Run a values program under real gdb (NUMBA_OPT=0, debug info) and stop it at a marked line.

Each program in this folder marks its stop line with a `# STOP` comment and writes what NumPy/Python
computed for the same values to the JSON file named by NUMBA_LENS_EXPECTED, before the jitted call.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from pyserver.debug.gdb.backend import GdbBackend, MIRecord

PROGRAMS = Path(__file__).resolve().parent


def stop_line(program: Path, marker: str = "# STOP") -> int:
    for number, text in enumerate(program.read_text().splitlines(), start=1):
        if text.rstrip().endswith(marker):
            return number
    raise AssertionError(f"{program} has no {marker!r} line")


@dataclass
class StoppedProgram:
    backend: GdbBackend
    program: Path
    line: int
    thread_id: int
    frame: dict[str, Any]
    expected: dict[str, Any]
    gdb_pid: int
    inferior_pid: int
    stops: list[dict[str, Any]] = field(default_factory=list)

    def resume(self, timeout: float = 60.0) -> dict[str, Any]:
        """-exec-continue and wait for the next stop; returns its payload (also in `stops`)."""
        seen = len(self.stops)
        self.backend.execute("-exec-continue")
        deadline = time.monotonic() + timeout
        while len(self.stops) == seen:
            if time.monotonic() > deadline:
                raise AssertionError(f"no stop within {timeout} s after continue")
            time.sleep(0.02)
        stop = self.stops[-1]
        self.frame = stop.get("frame", {})
        return stop

    def close(self, wait: float = 5.0) -> list[str]:
        """End gdb and the debuggee; returns what was still alive after `wait` seconds (then killed, so
        that a failing test leaves nothing behind either)."""
        self.backend.close()
        deadline = time.monotonic() + wait
        survivors: list[str] = []
        for label, pid in (("gdb", self.gdb_pid), ("debuggee", self.inferior_pid)):
            while pid and _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if pid and _alive(pid):
                survivors.append(f"{label} {pid} ({_status(pid)})")
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        return survivors


def _status(pid: int) -> str:
    try:
        return psutil.Process(pid).status()
    except psutil.NoSuchProcess:
        return "gone"


def _alive(pid: int) -> bool:
    return _status(pid) not in ("gone", psutil.STATUS_ZOMBIE)


def run_to_line(
    program: Path,
    line: int | None = None,
    *,
    timeout: float = 120.0,
    extra_env: dict[str, str] | None = None,
    reason: str = "breakpoint-hit",
) -> StoppedProgram:
    """Run under gdb until the breakpoint at `line` (0: no breakpoint, e.g. to wait for a signal) and
    a stop with the given reason."""
    if line is None:
        line = stop_line(program)
    expected_file = tempfile.NamedTemporaryFile(prefix="nl-expected-", suffix=".json", delete=False)
    expected_file.close()
    env = dict(os.environ)
    env.update({"NUMBA_OPT": "0", "NUMBA_DEBUGINFO": "1", "NUMBA_LENS_EXPECTED": expected_file.name})
    env.update(extra_env or {})
    backend = GdbBackend("gdb", env=env)
    stopped = threading.Event()
    stops: list[dict[str, Any]] = []
    inferior: dict[str, int] = {}

    def on_record(record: MIRecord) -> None:
        if record.message == "thread-group-started":
            inferior["pid"] = int(record.payload.get("pid", 0))
        if record.message == "stopped":
            stops.append(record.payload)
            stopped.set()

    backend.add_listener(on_record)
    try:
        backend.execute("-gdb-set breakpoint pending on")
        backend.execute(f"-file-exec-and-symbols {sys.executable}")
        out_file = expected_file.name + ".out"
        backend.execute(f"-exec-arguments {shlex.quote(str(program))} > {shlex.quote(out_file)} 2>&1")
        if line:
            backend.execute(f"-break-insert -f {program}:{line}")
        backend.execute("-exec-run", timeout=30)
        if not stopped.wait(timeout):
            raise AssertionError(f"no stop at {program.name}:{line} within {timeout} s")
        stop = stops[-1]
        if stop.get("reason") != reason:
            output = Path(out_file).read_text(errors="replace") if Path(out_file).exists() else ""
            raise AssertionError(f"program did not stop at the breakpoint: {stop}\n{output[-3000:]}")
        expected = json.loads(Path(expected_file.name).read_text() or "{}")
        return StoppedProgram(
            backend=backend,
            program=program,
            line=line,
            thread_id=int(stop.get("thread-id", 1)),
            frame=stop.get("frame", {}),
            expected=expected,
            gdb_pid=backend.pid,
            inferior_pid=inferior.get("pid", 0),
            stops=stops,
        )
    except BaseException:
        backend.close()
        raise


def write_expected(values: dict[str, Any]) -> None:
    """Called by the programs: what NumPy/Python say the values are."""
    path = os.environ.get("NUMBA_LENS_EXPECTED")
    if path:
        Path(path).write_text(json.dumps(values))
