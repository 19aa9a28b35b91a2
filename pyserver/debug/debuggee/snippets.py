"""Python source the adapter has the debuggee run: through gdb (PyRun_SimpleString, GIL held, in a
fresh namespace so that nothing lands in the user's __main__) or through debugpy (`evaluate` in a
Python frame). Each works in launched and attached programs alike."""

from __future__ import annotations

import textwrap

# Make debugpy stop at the next line of the Python frame that called the jitted code, the way
# `debugpy.breakpoint()` stops at the next line of its caller.
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

# Run when a Step Out leaves the outermost jitted frame for its Python caller: debugpy then stops where
# it ends a Step Out in pure Python, in the caller on the line of the call, right when the jitted call
# returns (inside/pydevd_ext/numba_lens_return_stop.py). Where that cannot be armed (no settrace
# tracing in the thread, e.g. pydevd on sys.monitoring), it falls back to STOP_IN_PYTHON_CALLER (a
# step over in the caller, which stops at its next line).
_ARM_RETURN_STOP = """
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

STOP_AT_PYTHON_CALLER_LINE = (
    _ARM_RETURN_STOP + "if not armed:\n" + textwrap.indent(STOP_IN_PYTHON_CALLER, "    ")
)

# Sleep with the GIL released until the adapter creates `path` (debugpy has answered its backlog).
WAIT_FOR_FILE = """
import os, time
deadline = time.monotonic() + {timeout}
while not os.path.exists({path!r}) and time.monotonic() < deadline:
    time.sleep(0.005)
"""

# Evaluated by debugpy in a Python frame: (module, qualname) of every Numba dispatcher it can see, in
# its globals and locals and as attributes of modules it imported (`kernels.walk(...)`). Objects are
# matched by their type's module first (numba's), so no user `__getattr__` runs. The first iterable of a
# comprehension is evaluated in the frame itself, so locals() is the frame's.
VISIBLE_DISPATCHERS = (
    "sorted({(v.py_func.__module__, v.py_func.__qualname__) for v in [*globals().values(), *locals().values(), "
    "*[a for m in list(globals().values()) if type(m).__name__ == 'module' for a in list(vars(m).values())]] "
    "if type(v).__module__.startswith('numba.') and hasattr(v, 'py_func') and hasattr(v, 'overloads')})"
)
