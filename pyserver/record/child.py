"""The recorded command as a child process that ends when `record` is ended.

SIGTERM, SIGHUP and SIGINT sent to `record` are forwarded to the command's process group (its own
children included); a group still running after `GRACE_S` is killed. On Linux the command also gets
SIGKILL when `record` itself dies without a chance to forward anything (PR_SET_PDEATHSIG); what the
command started in turn is then left to the terminal.

In the foreground of a terminal the command stays in `record`'s process group, as under any shell:
it reads the terminal, Ctrl-C and Ctrl-Z reach it directly, and `record` waits while it handles them.
Anywhere else it runs in a process group of its own, so forwarding reaches it and its children and
nothing else.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from types import FrameType

FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
GRACE_S = 5.0
_PR_SET_PDEATHSIG = 1


def _in_terminal_foreground() -> bool:
    try:
        return os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp()
    except OSError:
        return False


def _die_with(parent: int, own_group: bool) -> Callable[[], None]:
    """What the child runs between fork and exec."""

    def prepare() -> None:
        if own_group:
            os.setpgid(0, 0)
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            except (OSError, AttributeError):
                pass
            if os.getppid() != parent:  # record died before the line above: nobody would end us
                os._exit(1)

    return prepare


class _Ended(Exception):
    """Raised by the signal handler to leave the blocking wait for the command."""


class RecordedCommand:
    def __init__(self, command: Sequence[str], env: dict[str, str], grace_s: float = GRACE_S) -> None:
        self.command = list(command)
        self.env = env
        self.grace_s = grace_s
        self.shares_group = _in_terminal_foreground()
        self.ended_by: int | None = None  # the signal that ended record, if one did
        self._process: subprocess.Popen[bytes] | None = None
        self._blocking = False

    def run(self) -> int:
        """Run the command to its end (or record's), and return its exit code; 128 + the signal number
        when a signal ended record. Raises OSError (FileNotFoundError, ...) when it cannot start."""
        previous = {signum: signal.signal(signum, self._on_signal) for signum in FORWARDED}
        try:
            self._process = subprocess.Popen(
                self.command,
                env=self.env,
                preexec_fn=_die_with(os.getpid(), own_group=not self.shares_group),
            )
            code = self._wait(self._process)
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        if self.ended_by is not None:
            return 128 + self.ended_by
        return code if code >= 0 else 128 - code  # killed by signal N: 128 + N, as shells say

    def _wait(self, process: subprocess.Popen[bytes]) -> int:
        while self.ended_by is None:
            self._blocking = True
            try:
                if self.ended_by is not None:  # arrived just before the flag was set
                    break
                return process.wait()
            except _Ended:
                pass
            finally:
                self._blocking = False
        self._send(process, self.ended_by)
        deadline = time.monotonic() + self.grace_s
        try:
            code = process.wait(timeout=self.grace_s)
        except subprocess.TimeoutExpired:
            self._send(process, signal.SIGKILL)
            code = process.wait()
        if not self.shares_group:
            _end_group(process.pid, deadline)
        return code

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGINT and self.shares_group:
            return  # the terminal sent it to the whole group: the command decides what it means
        if self.ended_by is None:
            self.ended_by = signum
            if self._blocking:
                raise _Ended

    def _send(self, process: subprocess.Popen[bytes], signum: int) -> None:
        """`signum` to the command's process group, never to record itself."""
        try:
            if not self.shares_group:
                os.killpg(process.pid, signum)
                return
            if process.returncode is not None:
                return
            # An interactive shell makes a group of its own; anything else shares record's.
            group = os.getpgid(process.pid)
            if group != os.getpgrp():
                os.killpg(group, signum)
            elif signum == signal.SIGKILL:
                process.kill()  # record's own group: the command only
            else:
                # Record's own group: a signal is discarded for a process that ignores it.
                handler = signal.signal(signum, signal.SIG_IGN)
                try:
                    os.killpg(group, signum)
                finally:
                    signal.signal(signum, handler)
        except OSError:
            pass  # gone already


def _end_group(group: int, deadline: float) -> None:
    """What the command started and left running: a moment more, then killed."""
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except OSError:
            return
        time.sleep(0.05)
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
