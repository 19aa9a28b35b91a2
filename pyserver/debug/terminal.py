"""`console: integratedTerminal`: the program's input and output in the editor's terminal.

The adapter asks the editor (DAP `runInTerminal`) to run a small holder in a terminal. The holder reports
its terminal device and stays alive; gdb (or the plain launch) then gives that device to the program, so
the program reads and writes the terminal directly. The holder leaves when the adapter deletes its
report file or the adapter dies.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass

HOLDER = r"""
import os, sys, time
report, adapter = sys.argv[1], int(sys.argv[2])
with open(report + ".tmp", "w") as fh:
    fh.write(f"{os.getpid()} {os.ttyname(sys.stdout.fileno())}\n")
os.rename(report + ".tmp", report)
print("[Numba Lens: the program's input and output are in this terminal]", flush=True)
while os.path.exists(report):
    try:
        os.kill(adapter, 0)
    except OSError:
        break
    time.sleep(0.25)
"""


@dataclass
class TerminalHolder:
    pid: int
    tty: str
    report: str

    def close(self) -> None:
        try:
            os.unlink(self.report)
        except OSError:
            pass
        shutil.rmtree(os.path.dirname(self.report), ignore_errors=True)
        try:
            os.kill(self.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass


def holder_command(python: str) -> tuple[list[str], str]:
    """The command for runInTerminal, and the report file it will write."""
    report = os.path.join(tempfile.mkdtemp(prefix="numba-lens-tty-"), "tty")
    return [python, "-c", HOLDER, report, str(os.getpid())], report


def wait_for_holder(report: str, timeout: float) -> TerminalHolder | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(report, encoding="utf-8") as fh:
                pid_text, tty = fh.read().split()
            return TerminalHolder(int(pid_text), tty, report)
        except (OSError, ValueError):
            time.sleep(0.02)
    shutil.rmtree(os.path.dirname(report), ignore_errors=True)
    return None
