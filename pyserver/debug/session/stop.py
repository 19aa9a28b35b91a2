"""The one stop state: which side holds the program stopped (or none while it runs), its stopped thread,
what the next stops mean (StopIntent) and the signal of a signal stop.

Written from the request worker and from gdb's and debugpy's event threads: every change is made under
the session lock. A new stop or a resume forgets the frames and variables handed out for the last one.
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyserver.debug.dap import DapError
from pyserver.debug.stop_intent import StopIntent


class StopOwner(enum.Enum):
    JIT = "gdb"  # gdb holds the program (a stop in jitted code, or anywhere gdb stopped it)
    PYTHON = "debugpy"  # debugpy holds it (a stop in Python code)


class StopState:
    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self._on_move: list[Callable[[], None]] = []
        self._owner: StopOwner | None = None
        self._thread: int | None = None
        self._intent = StopIntent()
        self._signal: dict[str, str] = {}

    @property
    def owner(self) -> StopOwner | None:
        return self._owner

    @property
    def thread(self) -> int | None:
        """The editor's (native) id of the stopped thread, or None while the program runs."""
        return self._thread

    @property
    def intent(self) -> StopIntent:
        return self._intent

    def on_move(self, forget: Callable[[], None]) -> None:
        """Call `forget` at each new stop and resume (what was handed out for the last stop is gone)."""
        self._on_move.append(forget)

    def held_by(self, owner: StopOwner) -> bool:
        return self._owner is owner

    def take(self, owner: StopOwner | None, thread: int | None) -> None:
        """Who holds the program now and its stopped thread: the frames and variables of any earlier stop
        are gone."""
        with self._lock:
            self._owner = owner
            self._thread = thread
        for forget in self._on_move:  # outside the lock: a reset may ask gdb
            forget()

    def resumed(self) -> None:
        with self._lock:
            self._signal = {}
            self.take(None, None)

    def require_stopped(self) -> StopOwner:
        owner = self._owner
        if owner is None:
            raise DapError("The program is running.", show_user=False)
        return owner

    def update_intent(self, **changes: Any) -> StopIntent:
        """Change what the next stops mean (StopIntent's fields); returns the intent before the change."""
        with self._lock:
            before = self._intent
            self._intent = replace(before, **changes)
            return before

    @property
    def signal(self) -> dict[str, str]:
        """The exception info of a stop by a signal (empty for other stops)."""
        return self._signal

    def stopped_by_signal(self, info: dict[str, str]) -> None:
        with self._lock:
            self._signal = info
