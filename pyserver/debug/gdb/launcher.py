"""Launch a Python program (optionally with debugpy inside) under gdb, output through a pty.

What this relies on: `-file-exec-and-symbols` takes the venv's python
path as given; breakpoints in jitted code are inserted with `-f` (pending until Numba registers the code
through gdb's JIT interface); `-inferior-tty-set` keeps the program's output out of MI.
"""

from __future__ import annotations

import os
import select
import threading
import tty
from collections.abc import Callable, Mapping, Sequence

from pyserver.debug.debuggee.inside import BOOTSTRAP
from pyserver.debug.gdb.backend import GdbBackend
from pyserver.debug.gdb.mi import exec as mi_exec
from pyserver.debug.gdb.mi import target as mi_target
from pyserver.debug.gdb.mi_protocol import GdbCommandError

# How long a partial line waits for the rest of it before it is shown anyway.
PARTIAL_LINE_DELAY_S = 0.05

# Set by gdb-for-pwndbg's wrapper script for gdb's embedded Python (see start_inferior).
GDB_WRAPPER_VARIABLES = ("PYTHONHOME", "PYTHONPATH", "PYTHONNOUSERSITE")


class InferiorPty:
    """A pty for the debuggee's stdin/stdout/stderr; a thread forwards what it prints."""

    def __init__(self, on_output: Callable[[str], None]) -> None:
        self.master_fd, self.slave_fd = os.openpty()
        # Raw mode: no echo, no \n -> \r\n translation.
        tty.setraw(self.slave_fd)
        self.name = os.ttyname(self.slave_fd)
        self._on_output = on_output
        self._closed = False
        self.drained = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="inferior-pty", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        # Whole lines are forwarded at once, so that output from another source (debugpy's log points)
        # never lands inside one of the program's lines; a partial line (a prompt) follows after a pause.
        pending = b""
        try:
            while True:
                ready, _, _ = select.select(
                    [self.master_fd], [], [], PARTIAL_LINE_DELAY_S if pending else None
                )
                if not ready:
                    self._forward(pending)
                    pending = b""
                    continue
                try:
                    data = os.read(self.master_fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                pending += data
                end = pending.rfind(b"\n") + 1
                if end:
                    self._forward(pending[:end])
                    pending = pending[end:]
        finally:
            self._forward(pending)
            self.drained.set()

    def _forward(self, data: bytes) -> None:
        if data:
            self._on_output(data.decode("utf-8", errors="replace"))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # Closing our slave end lets the reader see EOF once the debuggee has closed its ends too.
        for fd in (self.slave_fd,):
            try:
                os.close(fd)
            except OSError:
                pass
        self.drained.wait(1.0)
        try:
            os.close(self.master_fd)
        except OSError:
            pass


def configure_gdb(backend: GdbBackend) -> None:
    """Settings every session needs, before the executable is loaded."""
    for setting, value in (
        ("mi-async", "on"),
        ("pagination", "off"),
        ("confirm", "off"),
        ("breakpoint pending", "on"),
        ("print pretty", "off"),
        ("width", "0"),
        ("height", "0"),
    ):
        mi_target.gdb_set(backend, setting, value)
    # gdb 12+ built with debuginfod asks before downloading symbols; never download, never ask.
    try:
        backend.execute_console("set debuginfod enabled off")
    except GdbCommandError:
        pass  # a gdb without debuginfod support
    # No `set auto-load safe-path /`: Python frames are decoded by inside/pyframes_gdb.py, so gdb need not
    # auto-load scripts found next to whatever libraries the program loads.
    # Thread start/exit chatter from Numba's thread pools would flood the console.
    backend.execute_console("set print thread-events off")
    backend.execute_console("set print inferior-events off")


def debuggee_argv(
    *,
    program: str | None,
    module: str | None,
    args: Sequence[str],
    debugpy_port: int | None,
    wait_for_client: bool = True,
) -> list[str]:
    """The arguments after the interpreter: our bootstrap, then debugpy's own command line."""
    argv: list[str] = [str(BOOTSTRAP)]
    if debugpy_port is not None:
        # debugpy's DAP server inside the debuggee: no adapter process to start (or to outlive us).
        argv += ["--in-process", "--listen", f"127.0.0.1:{debugpy_port}"]
        if wait_for_client:
            argv.append("--wait-for-client")
    else:
        argv.append("--no-debugpy")
    if module:
        argv += ["-m", module]
    elif program:
        argv.append(program)
    else:
        raise ValueError("either program or module is required")
    argv += list(args)
    return argv


def start_inferior(
    backend: GdbBackend,
    *,
    python: str,
    argv: Sequence[str],
    env: Mapping[str, str | None],
    cwd: str | None,
    tty_name: str | None,
    run: bool = True,
) -> None:
    """Load `python`, set arguments/environment/cwd/tty and (if `run`) start it."""
    mi_target.file_exec_and_symbols(backend, python, timeout=60.0)
    mi_exec.exec_arguments(backend, argv)
    # A gdb from PyPI (gdb-for-pwndbg) starts through a wrapper that sets these for its own embedded
    # Python; the program gets ours (or none), never the wrapper's.
    env = {**{name: os.environ.get(name) for name in GDB_WRAPPER_VARIABLES}, **env}
    for name, value in env.items():
        if value is None:
            backend.execute_console(f"unset environment {name}")
        else:
            backend.execute_console(f"set environment {name}={value}")
    if cwd:
        mi_target.environment_cd(backend, cwd)
    if tty_name:
        mi_target.inferior_tty_set(backend, tty_name)
    if run:
        mi_exec.exec_run(backend, timeout=60.0)
