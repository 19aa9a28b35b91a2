"""What a request asks of either side of the program: the jitted side (gdb) or the Python side (debugpy).

A request goes to the side that owns the stop (or that made the frame or variable it names), never
through a test of which side that is. A side that is not there (no gdb in mode python, nothing before a
launch) is an `AbsentSide`, whose answers are those of a side with nothing to show.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol

from pyserver.debug.dap import DapError


class StepKind(enum.Enum):
    OVER = "next"
    INTO = "stepIn"
    OUT = "stepOut"


class FrameKind(enum.Enum):
    JIT = "jit"  # a frame of jitted code (gdb)
    INTERNAL = "internal"  # gdb's frame of C code or the interpreter, or a label
    PYTHON_UNDER_GDB = "gdb-python"  # a Python frame read from memory while gdb holds the program
    PYTHON = "debugpy"  # a Python frame that debugpy owns


@dataclass
class FrameRef:
    """What one of our frame ids stands for: the side that made it and where the frame is."""

    side: Side
    kind: FrameKind
    thread_id: int  # the editor's (native) thread id
    gdb_thread: str = ""
    level: int = 0
    debugpy_frame: int = 0
    path: str = ""
    line: int = 0


class VariableSource(Protocol):
    """What one of our variable references stands for: it lists its children."""

    def variables(self, args: dict[str, Any]) -> list[dict[str, Any]]: ...


class Side(Protocol):
    """One peer that can hold the program stopped: the requests about a stop go to it."""

    @property
    def present(self) -> bool: ...

    def threads(self) -> list[dict[str, Any]]: ...

    def stack(self, thread_id: int, args: dict[str, Any]) -> list[dict[str, Any]]: ...

    def scopes(self, frame: FrameRef) -> list[dict[str, Any]]: ...

    def evaluate(self, args: dict[str, Any], frame: FrameRef | None) -> dict[str, Any]: ...

    def resume(self, thread_id: int) -> None: ...

    def step(self, thread_id: int, kind: StepKind) -> None: ...

    def exception_info(self, thread_id: int) -> dict[str, Any]: ...

    def set_function_breakpoints(self, bps: list[dict[str, Any]]) -> list[dict[str, Any]]: ...


class AbsentSide:
    """A side that is not there: it has no threads, frames or breakpoints, and cannot run the program."""

    present = False

    def threads(self) -> list[dict[str, Any]]:
        return []

    def stack(self, thread_id: int, args: dict[str, Any]) -> list[dict[str, Any]]:
        raise DapError("The program is not stopped.")

    def scopes(self, frame: FrameRef) -> list[dict[str, Any]]:
        return []

    def evaluate(self, args: dict[str, Any], frame: FrameRef | None) -> dict[str, Any]:
        raise DapError("The program is not running.")

    def resume(self, thread_id: int) -> None:
        raise DapError("The program is not running.")

    def step(self, thread_id: int, kind: StepKind) -> None:
        raise DapError("The program is not running.")

    def exception_info(self, thread_id: int) -> dict[str, Any]:
        raise DapError("No exception information.")

    def set_function_breakpoints(self, bps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return []
