"""The clock of the imports of modules from outside the workspace, which the file's time-out does not count."""

from __future__ import annotations

import time
import types
from typing import Any


class ImportClock:
    """Time the analysed file spends importing modules from outside the workspace (a third-party package
    that compiles its explicit signatures at import, such as pynndescent: 21 s here). That is not the
    file's own work: the worker tells the engine, which stops the file's time-out clock meanwhile."""

    def __init__(self) -> None:
        self.depth = 0
        self.excluded_s = 0.0
        self.excluded_cpu_s = 0.0  # the importing thread's CPU time meanwhile
        self.on_change: Any = None  # callable(paused: bool, module name) or None
        self._started, self._started_cpu = 0.0, 0.0

    def enter(self, name: str) -> None:
        self.depth += 1
        if self.depth == 1:
            self._started, self._started_cpu = time.perf_counter(), time.thread_time()
            if self.on_change is not None:
                self.on_change(True, name)

    def leave(self, name: str) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.excluded_s += time.perf_counter() - self._started
            self.excluded_cpu_s += time.thread_time() - self._started_cpu
            if self.on_change is not None:
                self.on_change(False, name)


IMPORT_CLOCK = ImportClock()


def timed_exec_module(original: Any, name: str) -> Any:
    def exec_module(module: types.ModuleType) -> None:
        IMPORT_CLOCK.enter(name)
        try:
            original(module)
        finally:
            IMPORT_CLOCK.leave(name)

    return exec_module
