"""One gdb process driven through MI: token-prefixed commands, replies matched by token.

pygdbmi parses the records; its timeout-based `write()` is not used. A reader thread reads gdb's stdout
line by line, resolves the waiting command whose token the result record carries, and queues every async
record (`*stopped`, `*running`, `=breakpoint-modified`, `=thread-created`, ...). A dispatcher thread hands
those to listeners, so a listener may itself call `execute()` without deadlocking the reader.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pygdbmi import gdbmiparser

from pyserver.debug.gdb.mi import console as mi_console
from pyserver.debug.gdb.mi.target import GDB_EXIT
from pyserver.debug.gdb.mi_protocol import GdbCommandError

__all__ = ["AsyncListener", "GdbBackend", "MIRecord", "kill_group", "set_parent_death_signal"]

PR_SET_PDEATHSIG = 1

AsyncListener = Callable[["MIRecord"], None]


@dataclass
class MIRecord:
    """An async record: kind is '*' (exec), '=' (notify) or '+' (status); message e.g. 'stopped'."""

    kind: str
    message: str
    payload: dict[str, Any]


@dataclass
class _Pending:
    command: str
    done: threading.Event = field(default_factory=threading.Event)
    result_class: str = ""
    payload: dict[str, Any] = field(default_factory=dict)
    console: list[str] = field(default_factory=list)


def set_parent_death_signal(sig: int = signal.SIGKILL) -> None:
    """Ask Linux to send `sig` to this process when its parent thread dies (used in preexec_fn)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)
    except OSError:
        pass


class GdbBackend:
    """Implements MIExecutor over one `gdb --interpreter=mi3` process."""

    def __init__(
        self,
        gdb_path: str = "gdb",
        *,
        extra_args: Sequence[str] = (),
        env: dict[str, str] | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.gdb_path = gdb_path
        self._log = log or (lambda _msg: None)
        self._tokens = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._pending_order: list[int] = []
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._listeners: list[AsyncListener] = []
        self._async_queue: queue.Queue[MIRecord | None] = queue.Queue()
        self._closed = threading.Event()
        self.exited = threading.Event()
        self.stderr_tail: list[str] = []
        self.process = subprocess.Popen(
            [gdb_path, "--nx", "--quiet", "--interpreter=mi3", *extra_args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            # Its own session: a Ctrl+C to the editor's process group must not reach gdb, and the
            # whole tree can be signalled at once. The death signal ends gdb if the adapter dies.
            start_new_session=True,
            preexec_fn=set_parent_death_signal,
        )
        self.pid = self.process.pid
        self._reader = threading.Thread(target=self._read_stdout, name="gdb-mi-reader", daemon=True)
        self._reader.start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, name="gdb-stderr", daemon=True)
        self._stderr_reader.start()
        self._dispatcher = threading.Thread(target=self._dispatch, name="gdb-mi-dispatch", daemon=True)
        self._dispatcher.start()

    # --- listeners -----------------------------------------------------------------------------------
    def add_listener(self, listener: AsyncListener) -> None:
        """Called (on the dispatcher thread) with every async record, in order."""
        self._listeners.append(listener)

    # --- commands ------------------------------------------------------------------------------------
    def execute(self, command: str, timeout: float = 10.0) -> dict[str, Any]:
        return self._run(command, timeout).payload

    def execute_collecting_console(self, command: str, timeout: float = 10.0) -> tuple[dict[str, Any], str]:
        pending = self._run(command, timeout)
        return pending.payload, "".join(pending.console)

    def execute_console(self, command: str, timeout: float = 10.0) -> str:
        """Run a CLI command through MI and return the console text it printed."""
        return mi_console.console_output(self, command, timeout=timeout)

    def _run(self, command: str, timeout: float) -> _Pending:
        if self.exited.is_set():
            raise GdbCommandError(command, "gdb has exited")
        token = next(self._tokens)
        pending = _Pending(command)
        with self._lock:
            self._pending[token] = pending
            self._pending_order.append(token)
        line = f"{token}{command}\n"
        self._log(f"-> {line.rstrip()}")
        try:
            with self._write_lock:
                assert self.process.stdin is not None
                self.process.stdin.write(line.encode())
                self.process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            self._forget(token)
            raise GdbCommandError(command, f"gdb is not running ({exc})") from None
        if not pending.done.wait(timeout):
            self._forget(token)
            raise GdbCommandError(command, f"no answer from gdb within {timeout:g} s")
        if pending.result_class == "error":
            raise GdbCommandError(command, str(pending.payload.get("msg", "error")))
        if pending.result_class == "exited":
            raise GdbCommandError(command, "gdb has exited")
        return pending

    def _forget(self, token: int) -> None:
        with self._lock:
            self._pending.pop(token, None)
            if token in self._pending_order:
                self._pending_order.remove(token)

    # --- threads -------------------------------------------------------------------------------------
    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        try:
            for raw in self.process.stdout:
                text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                if not text or text.startswith("(gdb)"):
                    continue
                self._log(f"<- {text}")
                try:
                    record = gdbmiparser.parse_response(text)
                except Exception as exc:  # a record pygdbmi cannot parse must not stop the reader
                    self._log(f"unparsable MI record ({exc}): {text}")
                    continue
                self._handle(text, record)
        finally:
            self.exited.set()
            with self._lock:
                pendings = list(self._pending.values())
                self._pending.clear()
                self._pending_order.clear()
            for pending in pendings:
                pending.result_class = "exited"
                pending.done.set()
            self._async_queue.put(MIRecord("=", "gdb-exited", {}))
            self._async_queue.put(None)

    def _handle(self, text: str, record: dict[str, Any]) -> None:
        kind = record.get("type")
        payload = record.get("payload") or {}
        if kind == "result":
            token = record.get("token")
            with self._lock:
                pending = self._pending.pop(token, None) if token is not None else None
                if token in self._pending_order:
                    self._pending_order.remove(token)
            if pending is not None:
                pending.result_class = str(record.get("message"))
                pending.payload = payload if isinstance(payload, dict) else {}
                pending.done.set()
        elif kind == "notify":
            body = text.lstrip("0123456789")
            self._async_queue.put(MIRecord(body[:1], str(record.get("message")), payload))
        elif kind in ("console", "target", "log"):
            content = str(payload) if payload is not None else ""
            # Console output printed between a command and its result belongs to that command.
            with self._lock:
                oldest = self._pending.get(self._pending_order[0]) if self._pending_order else None
            if kind == "console" and oldest is not None:
                oldest.console.append(content)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            line = raw.decode("utf-8", errors="replace").rstrip()
            self.stderr_tail = [*self.stderr_tail[-50:], line]
            self._log(f"gdb stderr: {line}")

    def _dispatch(self) -> None:
        while True:
            record = self._async_queue.get()
            if record is None:
                return
            for listener in list(self._listeners):
                try:
                    listener(record)
                except Exception as exc:  # one broken listener must not starve the others
                    self._log(f"async listener failed on {record.message}: {exc!r}")

    # --- lifetime ------------------------------------------------------------------------------------
    def close(self, timeout: float = 3.0) -> None:
        """Exit gdb (which kills a launched inferior), then kill gdb's whole process group by id."""
        if self._closed.is_set():
            return
        self._closed.set()
        if not self.exited.is_set():
            try:
                with self._write_lock:
                    assert self.process.stdin is not None
                    self.process.stdin.write(f"{GDB_EXIT}\n".encode())
                    self.process.stdin.flush()
            except OSError:
                pass
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
        kill_group(self.pid)
        try:
            self.process.kill()
        except OSError:
            pass
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
