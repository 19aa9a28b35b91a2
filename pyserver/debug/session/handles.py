"""The ids the session hands the editor, and what each stands for: frames (a FrameRef) and variable
references (a VariableSource of the side that made it). All of a stop's handles are forgotten when the
program moves on; ids are never reused (breakpoints take theirs from the same counter)."""

from __future__ import annotations

import threading

from pyserver.debug.dap import DapError
from pyserver.debug.session.side import FrameRef, VariableSource


class Handles:
    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self._next_id = 1
        self._frames: dict[int, FrameRef] = {}
        self._variables: dict[int, VariableSource] = {}

    def new_id(self) -> int:
        with self._lock:
            value = self._next_id
            self._next_id += 1
            return value

    def frame_id(self, ref: FrameRef) -> int:
        frame_id = self.new_id()
        with self._lock:
            self._frames[frame_id] = ref
        return frame_id

    def frame(self, frame_id: int) -> FrameRef:
        with self._lock:
            ref = self._frames.get(frame_id)
        if ref is None:
            raise DapError("That frame is gone (the program has moved on).", show_user=False)
        return ref

    def variables_reference(self, source: VariableSource) -> int:
        ref = self.new_id()
        with self._lock:
            self._variables[ref] = source
        return ref

    def variables(self, reference: int) -> VariableSource | None:
        with self._lock:
            return self._variables.get(reference)

    def forget(self) -> None:
        with self._lock:
            self._frames.clear()
            self._variables.clear()
