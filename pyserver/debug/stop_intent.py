"""What the session expects of the next stops: one explicit value in place of separate flags.

The request that resumes the program (continue, a step, pause, attach) sets it; the stop handlers
(pyserver/debug/session/: jit_events.py, python_side.py) read it once at each stop, gdb's and
debugpy's alike, and say what it becomes. gdb's next stop is read through `kind`; debugpy's through the python_* fields and
drop_debugpy_pause, which outlive gdb's stops (debugpy acts on them once the program is back in Python).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class IntentKind(enum.Enum):
    RUN = "run"  # nothing asked: a stop is what gdb says it is (a breakpoint, a signal)
    CONTINUE = "continue"
    STEP = "step"  # next, step in, step out
    REVERSE = "reverse"  # step back, reverse continue (gdb replays its recording)
    PAUSE = "pause"  # gdb interrupted the program: its SIGINT/SIGTRAP or reasonless stop is the pause
    ATTACH = "attach"  # the stop that attaching causes: not reported, the session continues it
    FINISH_IN_CODE_BP = "finish-in-code-bp"  # numba.gdb_breakpoint(): finishing to the jitted caller


@dataclass(frozen=True)
class StopIntent:
    kind: IntentKind = IntentKind.RUN
    # A Continue while gdb records: when the replay of the recording ends, run on live (one gdb stop).
    live_after_replay: bool = False
    # debugpy was asked to stop in the Python caller of the jitted code: its next stop ends the step.
    python_caller: bool = False
    # debugpy's thread with a Python step not yet ended by a debugpy stop (see PythonSide.cancel_step).
    python_step_thread: int | None = None
    # A pause debugpy could not answer (gdb paused instead): drop it when debugpy acts on it later.
    drop_debugpy_pause: bool = False
