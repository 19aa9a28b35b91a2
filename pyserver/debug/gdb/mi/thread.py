"""Thread commands: -thread-info, -list-thread-groups (cdt-gdb-adapter: mi/thread.ts)."""

from __future__ import annotations

from typing import TypedDict

from pyserver.debug.gdb.mi.base import DEFAULT_TIMEOUT_S, command_line
from pyserver.debug.gdb.mi.stack import MIFrame
from pyserver.debug.gdb.mi_protocol import MIExecutor

# gdb's thread tuple: id is gdb's number, target-id holds the LWP ("Thread 0x... (LWP 1234)").
MIThread = TypedDict(
    "MIThread",
    {"id": str, "target-id": str, "name": str, "state": str, "frame": MIFrame, "core": str},
    total=False,
)


class MIThreadGroup(TypedDict, total=False):
    """An inferior: id "i1", pid once it runs."""

    id: str
    type: str
    pid: str
    executable: str


def thread_info(
    mi: MIExecutor, thread: str | None = None, *, timeout: float = DEFAULT_TIMEOUT_S
) -> list[MIThread]:
    """Every thread gdb knows, or only `thread`, with its current frame (gdb reads the registers of each
    thread it lists: one thread is much quicker than all of a program's thread pools)."""
    return list(mi.execute(command_line("-thread-info", thread or ""), timeout).get("threads") or [])


def list_thread_groups(mi: MIExecutor, *, timeout: float = DEFAULT_TIMEOUT_S) -> list[MIThreadGroup]:
    return list(mi.execute("-list-thread-groups", timeout).get("groups") or [])
