"""Data commands: -data-evaluate-expression, -data-read-memory-bytes (cdt-gdb-adapter: mi/data.ts)."""

from __future__ import annotations

from pyserver.debug.gdb.mi.base import DEFAULT_TIMEOUT_S, c_string, command_line, thread_frame_options
from pyserver.debug.gdb.mi_protocol import MIExecutor


def data_evaluate_expression(
    mi: MIExecutor,
    expression: str,
    *,
    thread: str | int | None = None,
    frame: int | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> str:
    """The value gdb prints for a C-level expression in that thread and frame (the selected ones when
    left out)."""
    reply = mi.execute(
        command_line("-data-evaluate-expression", *thread_frame_options(thread, frame), c_string(expression)),
        timeout,
    )
    return str(reply.get("value", ""))


def data_read_memory_bytes(
    mi: MIExecutor, address: int, count: int, *, timeout: float = DEFAULT_TIMEOUT_S
) -> bytes:
    """The bytes gdb could read from address on (fewer than count when part is unreadable)."""
    reply = mi.execute(command_line("-data-read-memory-bytes", str(int(address)), str(int(count))), timeout)
    got = bytearray()
    for block in reply.get("memory") or []:
        got += bytes.fromhex(str(block.get("contents", "")))
    return bytes(got)
