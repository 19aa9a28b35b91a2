"""The narrow interface between the gdb back end and its users (values, frames, session).

The back end (pyserver/debug/gdb/backend.py) implements `MIExecutor`: one gdb process, token-prefixed
MI commands, replies matched by token in a reader thread. Users depend only on this protocol, so they can
be tested against the real back end without knowing how it holds gdb.
"""

from __future__ import annotations

from typing import Any, Protocol


class GdbCommandError(RuntimeError):
    """gdb answered `^error` (msg is gdb's text), or did not answer in time."""

    def __init__(self, command: str, message: str) -> None:
        super().__init__(f"{command}: {message}")
        self.command = command
        self.message = message


class MIExecutor(Protocol):
    def execute(self, command: str, timeout: float = 10.0) -> dict[str, Any]:
        """Send one MI command (without token; the back end adds it) and return the payload of its
        `^done`/`^running`/`^connected` result record ({} when it has none). Raises GdbCommandError on
        `^error` or time-out."""
        ...


class ConsoleMIExecutor(MIExecutor, Protocol):
    def execute_collecting_console(self, command: str, timeout: float = 10.0) -> tuple[dict[str, Any], str]:
        """Like execute(), and also the console text gdb printed between the command and its result
        (what a CLI command run by -interpreter-exec console prints)."""
        ...
