"""Loaded inside the debuggee (pydevd_ext is on its sys.path): stop debugpy in a Python frame the moment
the jitted call it is making returns, which is where debugpy ends a Step Out in pure Python.

In pure Python, debugpy (pydevd) ends a Step Out at the callee's `return` event and shows the caller
there: on the line of the call, with the caller's variables as they are before the rest of the line
runs. A jitted callee has no Python frame and no `return` event; asking pydevd for a step over in the
caller (what the adapter does when a step leaves jitted code) stops only at the caller's *next* line,
or, when the call is on the caller's last line, nowhere in it at all.

Here the caller frame gets its own trace function with opcode events on: the first event in that frame
after the jitted call returns (the instruction after the call, still on the call's line) restores the
frame's tracing as it was and suspends the thread through pydevd, as its own `return` handling does.
Only with sys.settrace tracing (CPython up to 3.11, or pydevd not using sys.monitoring): elsewhere
`stop_on_return_to` returns False and the caller keeps to its other way.
"""

from __future__ import annotations

import sys
import threading
from types import FrameType
from typing import Any


def stop_on_return_to(frame: FrameType) -> bool:
    """Arm the stop; True when armed. Call it with the GIL held, in the thread that runs `frame`."""
    if sys.gettrace() is None:
        return False  # no settrace tracing in this thread: opcode events would never come
    try:
        import pydevd  # type: ignore[import-not-found]
        from _pydevd_bundle.pydevd_comm_constants import CMD_STEP_RETURN  # type: ignore[import-not-found]
    except ImportError:
        return False
    py_db = pydevd.get_global_debugger()
    if py_db is None:
        return False
    thread = threading.current_thread()
    previous_trace = frame.f_trace
    previous_opcodes = frame.f_trace_opcodes

    def on_event(event_frame: FrameType, event: str, arg: Any) -> Any:
        if event_frame is not frame:
            return None
        frame.f_trace_opcodes = previous_opcodes
        frame.f_trace = previous_trace
        py_db.set_suspend(thread, CMD_STEP_RETURN, original_step_cmd=CMD_STEP_RETURN)
        py_db.do_wait_suspend(thread, frame, "line", None)
        return None  # keep the frame's trace function as pydevd left it

    frame.f_trace = on_event
    frame.f_trace_opcodes = True
    return True
