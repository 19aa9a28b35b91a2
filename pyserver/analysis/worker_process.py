"""One analysis worker process, seen from the parent: how it is started (`python -m
pyserver.analysis.worker` with a request and a response pipe), what it printed, how big it is, and how
it is killed with everything it started."""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent.parent)


class WorkerProcess:
    """One worker process and its pipes."""

    def __init__(self, process: subprocess.Popen[bytes], requests: Connection, responses: Connection) -> None:
        self.process = process
        self.requests = requests
        self.responses = responses
        self.output: collections.deque[str] = collections.deque(maxlen=400)
        self.output_lock = threading.Lock()
        self.ready: dict[str, Any] = {}
        self.pump: threading.Thread | None = None  # reads the worker's stdout/stderr until EOF

    @property
    def pid(self) -> int:
        return self.process.pid

    def output_since(self, mark: int) -> str:
        with self.output_lock:
            return "".join(list(self.output)[mark:]) if mark < len(self.output) else ""

    def output_mark(self) -> int:
        with self.output_lock:
            return len(self.output)

    def rss_mb(self) -> float:
        try:
            with open(f"/proc/{self.pid}/statm") as handle:
                pages = int(handle.read().split()[1])
            return pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)
        except (OSError, ValueError, IndexError):
            return 0.0

    def cpu_s(self) -> float | None:
        """CPU seconds (user and system) the worker has used so far; None once it cannot be read."""
        try:
            with open(f"/proc/{self.pid}/stat") as handle:
                # the command name (field 2) may hold spaces: count the fields after its closing bracket
                fields = handle.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    def kill(self) -> None:
        # The worker leads its own session (start_new_session): its group holds whatever the user's module
        # forked or spawned at import, which must not outlive it. A group id is not reused while a member
        # lives, so this cannot reach an unrelated group.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.process.poll() is None:
            try:
                self.process.kill()
            except OSError:
                pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for connection in (self.requests, self.responses):
            try:
                connection.close()
            except OSError:
                pass
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass


def kill_worker(worker_box: list[WorkerProcess | None]) -> None:
    worker = worker_box[0]
    if worker is not None:
        worker.kill()
        worker_box[0] = None


def spawn_worker(
    python: str, workspace_root: str, signature_files: list[str], log: Callable[[str], None]
) -> WorkerProcess:
    """Start `python -m pyserver.analysis.worker` for this workspace, with its request and response
    pipes; a thread relays what it prints to `log`."""
    request_read, request_write = os.pipe()
    response_read, response_write = os.pipe()
    env = dict(os.environ)
    # Relative PYTHONPATH entries meant the workspace root (the worker's directory once it runs).
    user_path = [
        entry if os.path.isabs(entry) else os.path.join(workspace_root, entry)
        for entry in env.get("PYTHONPATH", "").split(os.pathsep)
        if entry
    ]
    env["PYTHONPATH"] = os.pathsep.join([PACKAGE_PARENT, *user_path])
    env["NUMBA_LENS_SIGNATURE_FILES"] = os.pathsep.join(signature_files)
    env["NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING"] = "1"
    env["PYTHONFAULTHANDLER"] = "1"
    env.pop("NUMBA_LENS_RECORD", None)  # the worker never records its own compiles
    command = [
        python,
        "-m",
        "pyserver.analysis.worker",
        str(request_read),
        str(response_write),
        workspace_root,
    ]
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=(request_read, response_write),
            # Not the workspace root: `-m` puts the start directory first on sys.path, and a
            # workspace file named like a stdlib module (typing.py) would break the worker's own
            # imports. The worker changes into the root once it has imported what it needs.
            cwd=PACKAGE_PARENT,
            env=env,
            start_new_session=True,
        )
    finally:
        os.close(request_read)
        os.close(response_write)
    worker = WorkerProcess(
        process, Connection(request_write, readable=False), Connection(response_read, writable=False)
    )

    def pump() -> None:
        assert process.stdout is not None
        for raw in iter(process.stdout.readline, b""):
            line = raw.decode("utf-8", "replace")
            with worker.output_lock:
                worker.output.append(line)
            log(f"[worker {process.pid}] {line.rstrip()}")

    worker.pump = threading.Thread(target=pump, name=f"numba-lens-worker-{process.pid}", daemon=True)
    worker.pump.start()
    return worker
