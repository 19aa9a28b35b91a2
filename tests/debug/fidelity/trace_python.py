"""Trace a fidelity program in pure Python: `NUMBA_DISABLE_JIT=1 python trace_python.py PROGRAM OUT.json`.

Records every line event of the program's own file, in order: the line, the function, the frame it
runs in (a small number, stable for the frame's life), the depth of that frame among the program's
frames, and the locals before the line runs, in a JSON form the comparison reads (see `canonical`).
Also every return of a program frame to a program frame: where the caller stands then (its line, the
call's, with the locals it has at that moment), which is where debugpy shows a Step Out end in pure
Python (pydevd stops at the callee's return event and shows the caller frame).
Writes {"lines": [...], "returns": [...]}; a return's "after" is the count of line events before it.
"""

from __future__ import annotations

import json
import math
import runpy
import sys
from types import FrameType
from typing import Any

import numpy as np


def canonical(value: Any) -> Any:
    """A value as a tagged JSON list: ["int", 3], ["array", dtype, shape, nested items], ..."""
    if isinstance(value, (bool, np.bool_)):
        return ["bool", bool(value)]
    if isinstance(value, (int, np.integer)):
        return ["int", int(value)]
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return ["float", number if math.isfinite(number) else repr(number)]
    if isinstance(value, (complex, np.complexfloating)):
        return ["complex", complex(value).real, complex(value).imag]
    if isinstance(value, str):
        return ["str", value]
    if isinstance(value, np.void) and value.dtype.names:
        return ["record", {name: canonical(value[name]) for name in value.dtype.names}]
    if isinstance(value, np.ndarray):
        return ["array", str(value.dtype), list(value.shape), [canonical(item) for item in value]]
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        # Compared in Python frames as its repr would be with these items (NumPy scalars as Python's).
        return ["namedtuple", type(value).__name__, list(value._fields), [canonical(item) for item in value]]
    if isinstance(value, tuple):
        return ["tuple", [canonical(item) for item in value]]
    if isinstance(value, list):
        return ["list", [canonical(item) for item in value]]
    if isinstance(value, dict):
        return ["dict", [[canonical(k), canonical(v)] for k, v in value.items()]]
    return ["other", type(value).__name__]


def main() -> None:
    program, out = sys.argv[1], sys.argv[2]
    events: list[dict[str, Any]] = []
    returns: list[dict[str, Any]] = []
    frame_numbers: dict[int, int] = {}
    live_frames: list[FrameType] = []

    counter = iter(range(1 << 30))

    def number_of(frame: FrameType) -> int:
        if id(frame) not in frame_numbers:
            frame_numbers[id(frame)] = next(counter)
        return frame_numbers[id(frame)]

    def where(frame: FrameType) -> dict[str, Any]:
        return {
            "line": frame.f_lineno,
            "function": frame.f_code.co_name,
            "frame": number_of(frame),
            "depth": live_frames.index(frame),
            "locals": {
                name: canonical(value)
                for name, value in frame.f_locals.items()
                if not name.startswith("__") and not callable(value) and type(value).__name__ != "module"
            },
        }

    def local_trace(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            events.append(where(frame))
        elif event == "return":
            caller = frame.f_back
            if caller is not None and caller in live_frames:
                returns.append({"after": len(events), "frame": number_of(frame), "caller": where(caller)})
            live_frames.remove(frame)
            frame_numbers.pop(id(frame), None)  # a later frame may reuse the address
        return local_trace

    def global_trace(frame: FrameType, event: str, arg: Any) -> Any:
        if event != "call" or frame.f_code.co_filename != program:
            return None
        live_frames.append(frame)
        number_of(frame)
        return local_trace

    sys.argv = [program]
    sys.settrace(global_trace)
    try:
        runpy.run_path(program, run_name="__main__")
    finally:
        sys.settrace(None)
    with open(out, "w") as handle:
        json.dump({"lines": events, "returns": returns}, handle)


if __name__ == "__main__":
    main()
