"""Stack commands: -stack-list-frames, -stack-list-variables (cdt-gdb-adapter: mi/stack.ts)."""

from __future__ import annotations

from typing import TypedDict

from pyserver.debug.gdb.mi.base import DEFAULT_TIMEOUT_S, command_line, thread_frame_options
from pyserver.debug.gdb.mi_protocol import MIExecutor

# A frame as gdb's `frame={...}` tuple gives it (every value a string). A TypedDict, not a dataclass: the
# frame code (jit/frames.py, jit/stepping.py) reads the same shape from *stopped records.
MIFrame = TypedDict(
    "MIFrame",
    {
        "level": str,
        "addr": str,
        "func": str,
        "file": str,
        "fullname": str,
        "line": str,
        "from": str,
        "arch": str,
    },
    total=False,
)


class MIVariable(TypedDict, total=False):
    """One entry of -stack-list-variables --all-values: arg is "1" for an argument."""

    name: str
    value: str
    arg: str


def stack_list_frames(
    mi: MIExecutor,
    thread: str | int,
    low: int | None = None,
    high: int | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> list[MIFrame]:
    """The thread's frames, innermost first; levels low..high (both included) when given."""
    bounds = [str(int(low)), str(int(high))] if low is not None and high is not None else []
    reply = mi.execute(command_line("-stack-list-frames", *thread_frame_options(thread), *bounds), timeout)
    return list(reply.get("stack") or [])


def stack_list_variables(
    mi: MIExecutor, thread: str | int, frame: int, *, timeout: float = DEFAULT_TIMEOUT_S
) -> list[MIVariable]:
    """Arguments and locals of the frame, with their values as gdb prints them."""
    reply = mi.execute(
        command_line("-stack-list-variables", *thread_frame_options(thread, frame), "--all-values"), timeout
    )
    return list(reply.get("variables") or [])
