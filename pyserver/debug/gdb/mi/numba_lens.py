"""The MI commands our own gdb scripts add (pyserver/debug/gdb/inside/values_gdb.py registers them)."""

from __future__ import annotations

from typing import Any

from pyserver.debug.gdb.mi.base import DEFAULT_TIMEOUT_S, command_line
from pyserver.debug.gdb.mi_protocol import MIExecutor


def numba_lens_frame(
    mi: MIExecutor, thread: int, level: int, *, timeout: float = DEFAULT_TIMEOUT_S
) -> dict[str, Any]:
    """The value reader's report of one jitted frame (pc, line, file, function, vars, entry_args, ...);
    its fields are read by pyserver/debug/values/."""
    return mi.execute(command_line("-numba-lens-frame", str(int(thread)), str(int(level))), timeout)
