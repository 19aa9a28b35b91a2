"""The debuggee process: how it was started (under gdb, as a plain child in modes python and cudasim, or
attached to), its terminal, its pid, its end (exit code, the exited and terminated events) and what is
left to clean up. Its pid is learnt on gdb's dispatcher thread: every change is made under the lock."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pyserver.debug.gdb.backend import kill_group, set_parent_death_signal
from pyserver.debug.gdb.launcher import InferiorPty
from pyserver.debug.launch_spec import LaunchSpec
from pyserver.debug.session.client import EditorClient
from pyserver.debug.session.common import all_descendants, reap_children
from pyserver.debug.terminal import TerminalHolder

# The exit code reported when the editor terminates a program whose own code is unknown (SIGKILL's).
KILLED_EXIT_CODE = 137


class Debuggee:
    def __init__(self, client: EditorClient, lock: threading.RLock, shutdown: Callable[[], None]) -> None:
        self._client = client
        self._lock = lock
        self._shutdown = shutdown
        self._shutdown_lock = threading.Lock()
        self.ended = threading.Event()
        self._exit_code: int | None = None
        self._pid: int | None = None
        self._attached = False
        self._process: subprocess.Popen[bytes] | None = None  # modes python and cudasim
        self._pty: InferiorPty | None = None
        self._terminal: TerminalHolder | None = None
        self._live_versions_dir: str | None = None
        self._sync_dir: str | None = None
        self._detaching = False
        self._shutting_down = False
        self._watched = False

    # --- what is known of it ---------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self._pid

    def learn_pid(self, pid: int | None) -> None:
        with self._lock:
            self._pid = pid or self._pid

    @property
    def attached(self) -> bool:
        return self._attached

    def attach(self, pid: int | None) -> None:
        with self._lock:
            self._attached = True
            self._pid = pid

    @property
    def exit_code(self) -> int | None:
        return self._exit_code

    @property
    def detaching(self) -> bool:
        """A detach is under way: gdb reports the detached process as exited, and it is not."""
        return self._detaching

    @property
    def shutting_down(self) -> bool:
        return self._shutting_down

    @property
    def runs_plain(self) -> bool:
        """Started by the session as a plain child (no gdb)."""
        return self._process is not None

    def plain_alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def watch_once(self, watch: Callable[[], None]) -> None:
        """Start `watch` on a thread of its own, the first time only."""
        with self._lock:
            if self._watched or not self._pid:
                return
            self._watched = True
        threading.Thread(target=watch, name="debuggee-watch", daemon=True).start()

    # --- files it shares with the adapter --------------------------------------------------------
    def live_versions_file(self) -> str:
        """Where the debuggee writes which SSA version is live at each line (made on first use)."""
        with self._lock:
            if self._live_versions_dir is None:
                self._live_versions_dir = tempfile.mkdtemp(prefix="numba-lens-live-")
                # Also when the adapter ends without the session's shutdown (its client gone, a failed launch).
                atexit.register(shutil.rmtree, self._live_versions_dir, ignore_errors=True)
            return os.path.join(self._live_versions_dir, "live-versions.jsonl")

    def existing_live_versions_file(self) -> str | None:
        return self.live_versions_file() if self._live_versions_dir is not None else None

    def sync_flag(self, name: str) -> str:
        """A path in the folder of the files the adapter creates to release a waiting program."""
        with self._lock:
            if self._sync_dir is None:
                self._sync_dir = tempfile.mkdtemp(prefix="numba-lens-sync-")
            return os.path.join(self._sync_dir, name)

    # --- starting it -----------------------------------------------------------------------------
    def tty(self, console: str, cwd: str, target: str) -> str:
        """The terminal device for the program: the editor's terminal, or our pty feeding the console."""
        if console == "integratedTerminal":
            self._terminal = self._client.terminal(cwd, f"Numba Lens: {os.path.basename(target)}")
            if self._terminal is not None:
                return self._terminal.tty
        self._pty = InferiorPty(lambda text: self._client.output(text, "stdout"))
        return self._pty.name

    def start_plain(self, spec: LaunchSpec, argv: list[str]) -> None:
        """Start the program as our child (modes python and cudasim) and report its end."""
        full_env = dict(os.environ)
        for key, value in spec.env.items():
            if value is None:
                full_env.pop(key, None)
            else:
                full_env[key] = value
        tty_name = self.tty(spec.console, spec.cwd, spec.target)
        tty_fd = self._pty.slave_fd if self._pty is not None else os.open(tty_name, os.O_RDWR | os.O_NOCTTY)
        process = subprocess.Popen(
            [spec.python, *argv],
            stdin=tty_fd,
            stdout=tty_fd,
            stderr=tty_fd,
            cwd=spec.cwd,
            env=full_env,
            start_new_session=True,
            preexec_fn=set_parent_death_signal,
        )
        if self._pty is None:
            os.close(tty_fd)
        with self._lock:
            self._process = process
            self._pid = process.pid
        threading.Thread(
            target=lambda: self.exited(process.wait()), name="debuggee-wait", daemon=True
        ).start()

    # --- its end ---------------------------------------------------------------------------------
    def exited(self, code: int | None) -> None:
        """The program ended (None: with an unknown code): tell the editor, then end the session."""
        with self._lock:
            if self.ended.is_set():
                return
            self.ended.set()
            if code is not None:
                self._exit_code = code
        if self._pty is not None:
            self._pty.drained.wait(2.0)
        self._client.event("exited", {"exitCode": code if code is not None else 0})
        self._client.send_terminated()
        threading.Thread(target=self._shutdown, name="session-shutdown", daemon=True).start()

    def end_for_editor(self, report_exit: bool) -> None:
        """The editor ended the session: the program counts as ended (with its exit event if asked)."""
        if not self.ended.is_set():
            self.ended.set()
            if report_exit:
                code = self._exit_code if self._exit_code is not None else KILLED_EXIT_CODE
                self._client.event("exited", {"exitCode": code})
        self._client.send_terminated()

    def start_detach(self) -> int | None:
        """Leave the attached process running: it is not ours to end. Returns its pid."""
        with self._lock:
            pid, self._pid = self._pid, None
            self._detaching = True
        return pid

    @contextmanager
    def ending(self) -> Iterator[set[int]]:
        """End the program and everything it started; the body closes the sides, adding to the set the
        processes to end with it. Idempotent."""
        self._shutting_down = True
        if self._live_versions_dir is not None:
            shutil.rmtree(self._live_versions_dir, ignore_errors=True)
        with self._shutdown_lock:
            descendants = all_descendants(os.getpid())
            yield descendants
            if self._process is not None:
                descendants |= all_descendants(self._process.pid)
                kill_group(self._process.pid)
                try:
                    self._process.kill()
                    self._process.wait(5)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            for pid in descendants:
                kill(pid)
            reap_children()
            if self._pty is not None:
                self._pty.close()
            if self._sync_dir is not None:
                shutil.rmtree(self._sync_dir, ignore_errors=True)
            if self._terminal is not None:
                self._terminal.close()


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
