"""What the editor asks for after every stop in jitted code (the stopped thread's stack and Python
frames, the top frame's scopes), read in the background as soon as gdb stops, so that stackTrace and
scopes find it ready instead of waiting on gdb in turn. Forgotten whenever the program moves; a read
of an earlier stop is never used (each is kept for the stop it was started at, and the values reader
keeps its scopes under its own lock, which a resume waits for)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# How long a request waits for a read already under way before asking gdb itself.
PREFETCH_WAIT_S = 10.0


@dataclass
class _Read:
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    failed: bool = False


class StopPrefetch:
    def __init__(self, log: Callable[[str], None]) -> None:
        self._log = log
        self._lock = threading.Lock()
        self._reads: dict[tuple[int, str], _Read] = {}

    def forget(self) -> None:
        """The program moved: what was read for the last stop is gone."""
        with self._lock:
            self._reads = {}

    def start(self, thread_id: int, reads: dict[str, Callable[[], Any]], then: Callable[[], object]) -> None:
        """Run `reads` (kept by name for this stop and thread), then `then`, on a thread of their own."""
        entries = {name: _Read() for name in reads}
        with self._lock:
            for name, entry in entries.items():
                self._reads[(thread_id, name)] = entry

        def run() -> None:
            for name, read in reads.items():
                entry = entries[name]
                try:
                    entry.result = read()
                except Exception:  # the request that needs it asks again and reports it
                    entry.failed = True
                finally:
                    entry.done.set()
            try:
                then()
            except Exception as exc:
                self._log(f"prefetch after a stop: {exc!r}")

        threading.Thread(target=run, name="numba-lens-prefetch", daemon=True).start()

    def get(self, thread_id: int, name: str, read: Callable[[], Any]) -> Any:
        """The result of `name` read at this stop when a read was started, else `read()` now."""
        key = (thread_id, name)
        with self._lock:
            entry = self._reads.get(key)
        if entry is not None and entry.done.wait(PREFETCH_WAIT_S):
            with self._lock:
                current = self._reads.get(key) is entry
            if current and not entry.failed:
                return entry.result
        return read()
