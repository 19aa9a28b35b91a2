"""Fault-injection helpers: the helpers of tests/lsp and tests/debug on sys.path, and a process census.

This process becomes a child subreaper, so anything the server, the worker, gdb or the debuggee leave
behind is re-parented to it (not to init) and the census sees it.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil

TESTS = Path(__file__).resolve().parents[1]
for helper_dir in (TESTS / "lsp", TESTS / "debug"):
    if str(helper_dir) not in sys.path:
        sys.path.append(str(helper_dir))

PR_SET_CHILD_SUBREAPER = 36
ctypes.CDLL("libc.so.6").prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def live_descendants() -> list[psutil.Process]:
    try:
        children = psutil.Process(os.getpid()).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    alive = []
    for child in children:
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                alive.append(child)
        except psutil.NoSuchProcess:
            pass
    return alive


def describe(processes: list[psutil.Process]) -> list[tuple[int, str]]:
    described = []
    for process in processes:
        try:
            described.append((process.pid, " ".join(process.cmdline())[:160]))
        except psutil.NoSuchProcess:
            pass
    return described


class Census:
    """Processes before and after: `assert_none_left()` waits (generously) for new ones to end."""

    def __init__(self) -> None:
        self.before = {p.pid for p in live_descendants()}

    def new(self) -> list[psutil.Process]:
        return [p for p in live_descendants() if p.pid not in self.before]

    def assert_none_left(self, timeout: float = 30.0) -> None:
        leftover = self.new()
        if not leftover:
            return
        _gone, alive = psutil.wait_procs(leftover, timeout=timeout)
        alive = [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
        if alive:
            found = describe(alive)
            for process in alive:
                try:
                    process.kill()
                except psutil.NoSuchProcess:
                    pass
            raise AssertionError(f"processes left behind: {found}")


def wait_until(predicate: Callable[[], object], timeout: float, what: str) -> object:
    """Poll a condition that has no event to wait on (a file appearing, a process starting)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)
