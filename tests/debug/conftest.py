"""Debugger test fixtures: a real gdb launching a real Numba program, and a no-orphans check.

`launch_stopped(program, line)` (fixture `gdb_at_line`) gives a GdbBackend stopped at a breakpoint
in jitted code; the values/frames tests use it too. `dap` is a DAP client of a running adapter.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest
from dapclient import DapClient

from pyserver.debug.gdb.backend import GdbBackend, MIRecord
from pyserver.debug.gdb.launcher import InferiorPty, configure_gdb, debuggee_argv, start_inferior

PROGRAMS = Path(__file__).resolve().parent / "programs"
PR_SET_CHILD_SUBREAPER = 36

# Orphans of the adapter's tree (e.g. debugpy's daemonised adapter) are re-parented to this process
# instead of init, so the no-orphans check below sees them.
ctypes.CDLL("libc.so.6").prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
STOP_TIMEOUT_S = 120.0


@dataclass
class StoppedProgram:
    gdb: GdbBackend
    stop: dict
    output: list[str] = field(default_factory=list)
    pty: InferiorPty | None = None

    def close(self) -> None:
        self.gdb.close()
        if self.pty is not None:
            self.pty.close()


def launch_stopped(
    program: str | Path,
    line: int,
    *,
    env: dict[str, str] | None = None,
    before_run: Callable[[GdbBackend], None] | None = None,
) -> StoppedProgram:
    """Launch `python program` under gdb (no debugpy) with debug info, stopped at program:line.
    `before_run(gdb)`: what to do in gdb once the breakpoint is set, before the program runs."""
    program = Path(program).resolve()
    gdb = GdbBackend("gdb")
    stopped = threading.Event()
    stops: list[dict] = []

    def on_record(record: MIRecord) -> None:
        if record.message == "stopped":
            stops.append(record.payload)
            stopped.set()
        elif record.message == "thread-group-exited":
            stopped.set()

    gdb.add_listener(on_record)
    output: list[str] = []
    pty = InferiorPty(output.append)
    try:
        configure_gdb(gdb)
        gdb.execute(f"-break-insert -f {Path(program).resolve()}:{line}")
        if before_run is not None:
            before_run(gdb)
        start_inferior(
            gdb,
            python=sys.executable,
            argv=debuggee_argv(program=str(program), module=None, args=[], debugpy_port=None),
            env={"NUMBA_DEBUGINFO": "1", "NUMBA_OPT": "0", **(env or {})},
            cwd=str(Path(program).resolve().parent),
            tty_name=pty.name,
        )
        if not stopped.wait(STOP_TIMEOUT_S) or not stops:
            raise AssertionError(f"program did not stop at line {line}; output: {''.join(output)!r}")
    except BaseException:
        gdb.close()
        pty.close()
        raise
    return StoppedProgram(gdb, stops[0], output, pty)


@pytest.fixture
def gdb_at_line() -> Iterator[Callable[..., StoppedProgram]]:
    launched: list[StoppedProgram] = []

    def launch(program: str | Path, line: int, **kwargs: object) -> StoppedProgram:
        result = launch_stopped(program, line, **kwargs)  # type: ignore[arg-type]
        launched.append(result)
        return result

    yield launch
    for item in launched:
        item.close()


def live_descendants() -> list[psutil.Process]:
    try:
        children = psutil.Process(os.getpid()).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]


@pytest.fixture(autouse=True)
def no_orphans() -> Iterator[None]:
    """Every debugger test must leave no process behind (gdb, debuggee, debugpy's adapter)."""
    before = {p.pid for p in live_descendants()}
    yield
    leftover = [p for p in live_descendants() if p.pid not in before]
    if leftover:
        _gone, alive = psutil.wait_procs(leftover, timeout=10)
        if alive:
            desc = [(p.pid, " ".join(p.cmdline())[:120]) for p in alive]
            for p in alive:
                p.kill()
            raise AssertionError(f"processes left behind: {desc}")


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    """A running adapter (`python -m pyserver dap`) and a DAP client of it, closed after the test."""
    client = DapClient(str(tmp_path / "dap.log"))
    yield client
    client.close()
