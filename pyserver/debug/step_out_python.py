"""The code the adapter runs in the debuggee (through gdb, with the GIL held) when a Step Out leaves the
outermost jitted frame for its Python caller: debugpy then stops where it ends a Step Out in pure
Python, in the caller on the line of the call, right when the jitted call returns
(pydevd_ext/numba_lens_return_stop.py). Where that cannot be armed (no settrace tracing in the thread,
e.g. pydevd on sys.monitoring), it falls back to STOP_IN_PYTHON_CALLER (a step over in the caller,
which stops at its next line)."""

from __future__ import annotations

import textwrap

# Run by gdb inside the debuggee (PyRun_SimpleString, GIL held, in a fresh namespace so that nothing
# lands in the user's __main__), in launched and attached programs alike: make debugpy stop at the next
# line of the Python frame that called the jitted code, the way `debugpy.breakpoint()` stops at the
# next line of its caller.
STOP_IN_PYTHON_CALLER = """
import sys
frame = sys._getframe(1)
while frame is not None and frame.f_code.co_filename == "<string>":
    frame = frame.f_back
try:
    from debugpy.server import api
except ImportError:
    api = None
if api is not None and frame is not None and api.is_client_connected():
    api._settrace(suspend=True, trace_only_current_thread=True, patch_multiprocessing=False, stop_at_frame=frame)
frame = None
"""

_ARM = """
import sys
frame = sys._getframe(1)
while frame is not None and frame.f_code.co_filename == "<string>":
    frame = frame.f_back
armed = False
if frame is not None:
    try:
        import numba_lens_return_stop
    except ImportError:
        pass
    else:
        armed = numba_lens_return_stop.stop_on_return_to(frame)
frame = None
"""

STOP_AT_PYTHON_CALLER_LINE = _ARM + "if not armed:\n" + textwrap.indent(STOP_IN_PYTHON_CALLER, "    ")
