"""The adapter process: stdio framing, logging, and the guarantees about child processes."""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
from collections.abc import Callable

from pyserver.debug.dap import DapStream
from pyserver.debug.session import Session

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """debugpy's adapter daemonises (double fork); as a subreaper we stay its ancestor and can end it."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except OSError:
        pass


def make_logger(path: str | None) -> Callable[[str], None]:
    if not path:
        return lambda _msg: None
    lock = threading.Lock()
    handle = open(path, "a", encoding="utf-8", buffering=1)
    started = time.monotonic()

    def log(message: str) -> None:
        with lock:
            handle.write(f"{time.monotonic() - started:9.3f} {message}\n")

    return log


def serve_stdio(log_path: str | None = None) -> int:
    become_subreaper()
    # DAP owns the real stdout; anything printed by mistake goes to stderr instead.
    stdin = os.fdopen(os.dup(sys.stdin.fileno()), "rb", buffering=0)
    stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    session = Session(DapStream(stdin, stdout), make_logger(log_path))  # type: ignore[arg-type]
    return session.serve()
