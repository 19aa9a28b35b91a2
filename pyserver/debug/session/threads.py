"""One thread registry: the editor knows a thread by its native id (the LWP), gdb by its own thread id,
debugpy by another. Without gdb (modes python and cudasim, or an attach to a debugpy port) the editor
gets debugpy's ids as they are.

Filled from the request worker and from gdb's and debugpy's event threads: written under the session
lock, and gdb's map is replaced whole, never changed in place, so a reader may iterate it unlocked.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping


class ThreadRegistry:
    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self._native_ids = False
        self._gdb_of_native: dict[int, str] = {}
        self._native_of_debugpy: dict[int, int] = {}
        self._debugpy_of_native: dict[int, int] = {}
        self._debugpy_names: dict[int, str] = {}  # debugpy id -> its thread name
        self._worker_names: dict[int, str] = {}  # native id -> "numba worker N"

    def use_native_ids(self) -> None:
        """gdb is there: the editor's thread ids are native ids, and debugpy's are mapped to them."""
        self._native_ids = True

    # --- gdb -------------------------------------------------------------------------------------
    def gdb_thread(self, native: int) -> str | None:
        return self._gdb_of_native.get(native)

    def gdb_thread_or_first(self, native: int | None) -> str:
        """gdb's id of the thread, or gdb's first thread when it is not known."""
        return self._gdb_of_native.get(native or 0, "1")

    def native_of_gdb(self, gdb_thread: str) -> int | None:
        for native, gid in self._gdb_of_native.items():
            if gid == gdb_thread:
                return native
        return None

    def set_gdb_threads(self, mapping: Mapping[int, str]) -> None:
        with self._lock:
            self._gdb_of_native = dict(mapping)

    def add_gdb_thread(self, native: int, gdb_thread: str) -> None:
        with self._lock:
            self._gdb_of_native = {**self._gdb_of_native, native: gdb_thread}

    # --- debugpy ---------------------------------------------------------------------------------
    def debugpy_thread(self, native: int) -> int:
        """debugpy's id of the editor's thread."""
        if not self._native_ids:
            return native
        with self._lock:
            return self._debugpy_of_native.get(native, native)

    def known_native_of_debugpy(self, theirs: int) -> int | None:
        """The editor's id of debugpy's thread: itself without gdb, else the native id once learnt."""
        if not self._native_ids:
            return theirs
        with self._lock:
            return self._native_of_debugpy.get(theirs)

    def add_debugpy_thread(self, theirs: int, native: int) -> None:
        with self._lock:
            self._native_of_debugpy[theirs] = native
            self._debugpy_of_native[native] = theirs

    def name_debugpy_thread(self, theirs: int, name: str) -> None:
        with self._lock:
            self._debugpy_names[theirs] = name

    def debugpy_names_by_native(self) -> dict[int, str]:
        with self._lock:
            return {
                native: self._debugpy_names.get(theirs, "")
                for theirs, native in self._native_of_debugpy.items()
            }

    # --- worker threads --------------------------------------------------------------------------
    def worker_name(self, native: int) -> str | None:
        return self._worker_names.get(native)

    def name_worker(self, native: int, kind: str) -> str:
        """Name a thread of a worker pool "<kind> N", N counting that kind's threads named so far."""
        with self._lock:
            count = sum(1 for n in self._worker_names.values() if n.startswith(kind))
            name = f"{kind} {count + 1}"
            self._worker_names[native] = name
            return name
