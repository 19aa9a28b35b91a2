"""Breakpoint commands: -break-insert, -break-delete, -break-after (cdt-gdb-adapter: mi/breakpoint.ts)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pyserver.debug.gdb.mi.base import DEFAULT_TIMEOUT_S, c_string, command_line
from pyserver.debug.gdb.mi_protocol import MIExecutor


@dataclass(frozen=True)
class MIBreakpoint:
    """A breakpoint as gdb reports it (`bkpt={...}` of -break-insert or =breakpoint-modified)."""

    number: str
    pending: bool  # not yet set: its code is not loaded (jitted code before Numba compiles it)
    line: int | None  # the line gdb set it on (its first location's), when set
    temporary: bool
    record: Mapping[str, Any] = field(repr=False)  # gdb's whole record, for what is not parsed above

    @classmethod
    def from_mi(cls, record: Mapping[str, Any]) -> MIBreakpoint:
        pending = record.get("addr") == "<PENDING>" or "pending" in record
        locations = record.get("locations") or []
        line_text = record.get("line") or (locations[0].get("line") if locations else None)
        return cls(
            number=str(record.get("number")),
            pending=pending,
            line=int(line_text) if line_text and not pending else None,
            temporary=record.get("disp") == "del",
            record=dict(record),
        )


def break_insert(
    mi: MIExecutor,
    location: str | None = None,
    *,
    source: str | None = None,
    line: int | None = None,
    temporary: bool = False,
    allow_pending: bool = False,
    qualified: bool = False,
    condition: str | None = None,
    ignore_count: int = 0,
    thread: str | int | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> MIBreakpoint:
    """-break-insert at `location` (a linespec: "path:line", a function) or at `source`'s `line`.
    allow_pending is -f (set it once the code is loaded: jitted code is, when Numba compiles it)."""
    if location is None and (source is None or line is None):
        raise ValueError("break_insert needs a location, or a source and a line")
    where = (
        c_string(location)
        if location is not None
        else f"--source {c_string(str(source))} --line {int(line or 0)}"
    )
    reply = mi.execute(
        command_line(
            "-break-insert",
            "-t" if temporary else "",
            "-f" if allow_pending else "",
            "--qualified" if qualified else "",
            f"-c {c_string(condition)}" if condition else "",
            f"-i {int(ignore_count)}" if ignore_count else "",
            f"-p {thread}" if thread is not None else "",
            where,
        ),
        timeout,
    )
    return MIBreakpoint.from_mi(reply.get("bkpt") or {})


def break_delete(mi: MIExecutor, *numbers: str, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    mi.execute(command_line("-break-delete", *numbers), timeout)


def break_after(mi: MIExecutor, number: str, count: int, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    """Ignore the breakpoint's next `count` hits."""
    mi.execute(command_line("-break-after", number, str(int(count))), timeout)
