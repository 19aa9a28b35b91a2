"""Step over/into from a line of the user's jitted code, carried on until another line of the user's code.

gdb alone stops inside Numba's helpers and once per element of an array expression: a LineStep absorbs
those stops (finishing out of helpers, repeating a step that stays on the line, then finishing with
temporary breakpoints on the function's other lines) and ends on the user's next line.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pyserver import pysource
from pyserver.debug.gdb.backend import GdbBackend
from pyserver.debug.gdb.mi import breakpoint as mi_breakpoint
from pyserver.debug.gdb.mi import stack as mi_stack
from pyserver.debug.gdb.mi.exec import Resume
from pyserver.debug.gdb.mi.stack import MIFrame
from pyserver.debug.gdb.mi_protocol import GdbCommandError
from pyserver.debug.jit import frames as jitframes

# A step from a line of jitted code that ends on the same line (an array expression's loop stops once
# per element) is repeated this many times, then finished with breakpoints on the function's other lines.
SAME_LINE_STEPS = 25
# At most this many intermediate stops (out of Numba's helpers, back onto the line) per step request.
MAX_STEP_ROUNDS = 200
# The gdb steps a LineStep repeats (a finish is never one).
LineStepKind = Literal["next", "step"]
# How deep to look for the user's jitted frame under Numba's helpers when a step stops inside them.
USER_FRAME_SEARCH = 32


@dataclass
class LineStep:
    """A step over or into from a line of the user's jitted code, carried on until another line of the
    user's code: gdb alone stops inside Numba's helpers and once per element of an array expression."""

    kind: LineStepKind
    gdb_thread: str
    func: str  # gdb's name of the user's frame it started in
    line: int
    path: str
    rounds: int = 0
    same_line: int = 0
    temps: list[str] = field(default_factory=list)  # temporary breakpoints on the function's other lines


class LineStepper:
    """The step in flight (`active`) of one gdb session. `resume` resumes gdb the way the session does
    (syncing debugpy first)."""

    def __init__(
        self,
        gdb: GdbBackend,
        resume: Callable[[Resume], None],
        just_my_code: bool,
        log: Callable[[str], None],
    ) -> None:
        self.gdb = gdb
        self.resume = resume
        self.just_my_code = just_my_code
        self.log = log
        self.active: LineStep | None = None

    def is_user_frame(self, frame: Mapping[str, Any]) -> bool:
        """A frame of the user's jitted code: not a generated kernel, a C helper or (with justMyCode)
        Numba's own library code."""
        if jitframes.classify_frame(frame) != "jit":
            return False
        return not (self.just_my_code and jitframes.is_numba_library_frame(frame))

    def user_frame_level(self, gdb_thread: str) -> tuple[int, MIFrame] | None:
        """The innermost user frame of the thread's jitted code (level, frame), or None when the jitted
        code ends (Numba's wrapper, the dispatcher or Python) before one."""
        for item in mi_stack.stack_list_frames(self.gdb, gdb_thread, 0, USER_FRAME_SEARCH):
            if self.is_user_frame(item):
                return int(item.get("level", 0)), item
            if jitframes.classify_frame(item) in ("wrapper", "dispatcher", "python-eval"):
                return None
        return None

    def start(self, kind: LineStepKind, gdb_thread: str) -> bool:
        """Step over/into from the user's jitted line (LineStep); False when the thread is not in the
        user's jitted code (gdb's own step is right there)."""
        try:
            found = self.user_frame_level(gdb_thread)
        except GdbCommandError as exc:
            self.log(f"line step: {exc.message}")
            return False
        if found is None:
            return False
        level, frame = found
        self.active = LineStep(
            kind,
            gdb_thread,
            str(frame.get("func", "")),
            int(frame.get("line") or 0),
            str(frame.get("fullname") or ""),
        )
        if level == 0:
            self.resume(Resume(kind, gdb_thread))
        else:
            # Stopped inside a hidden frame (a kernel, a helper): back to the user's line first.
            self.resume(Resume("finish", gdb_thread, level - 1))
        return True

    def on_stop(self, reason: str, payload: dict[str, Any], gdb_thread: str, frame: dict[str, Any]) -> str:
        """A stop during the active LineStep: "absorbed" (the step goes on), "step" (report it as the
        step's end) or "other" (the step is over; the stop is what it is: a breakpoint, a signal, leaving
        jitted code)."""
        step = self.active
        assert step is not None
        own_temp = reason == "breakpoint-hit" and str(payload.get("bkptno")) in step.temps
        if own_temp:
            self.end()
            return "step"
        if gdb_thread != step.gdb_thread or reason not in ("end-stepping-range", "function-finished"):
            self.end()
            return "other"
        step.rounds += 1
        try:
            if self.is_user_frame(frame):
                same = str(frame.get("func", "")) == step.func and int(frame.get("line") or 0) == step.line
                if not same or step.rounds > MAX_STEP_ROUNDS:
                    self.end()
                    return "step"
                step.same_line += 1
                if step.same_line <= SAME_LINE_STEPS or step.temps:
                    self.resume(Resume(step.kind, gdb_thread))
                    return "absorbed"
                step.temps = self._other_line_breakpoints(step)
                self.resume(Resume("finish", gdb_thread, 0))
                return "absorbed"
            found = self.user_frame_level(gdb_thread)
            if found is None or found[0] == 0 or step.rounds > MAX_STEP_ROUNDS:
                self.end()
                return "other"
            self.resume(Resume("finish", gdb_thread, found[0] - 1))
            return "absorbed"
        except GdbCommandError as exc:
            self.log(f"line step: {exc.message}")
            self.end()
            return "other"

    def _other_line_breakpoints(self, step: LineStep) -> list[str]:
        """Temporary breakpoints (this thread only) on every other statement line of the jitted function
        being stepped: the loop of one line runs at full speed instead of one stop per iteration."""
        try:
            from pyserver.analysis.api import find_jitted_functions, jitted_function_at

            source = Path(step.path).read_text(encoding="utf-8")
            function = jitted_function_at(find_jitted_functions(source, step.path), step.line)
            tree = pysource.parse(source)
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError, ImportError) as exc:
            self.log(f"line step: no lines of {step.path}: {exc}")
            return []
        if function is None:
            return []
        lines = sorted(
            {
                node.lineno
                for node in ast.walk(tree)
                if isinstance(node, ast.stmt) and function.def_line < node.lineno <= function.end_line
            }
            - {step.line}
        )
        temps = []
        for line in lines:
            try:
                inserted = mi_breakpoint.break_insert(
                    self.gdb, f"{step.path}:{line}", temporary=True, thread=step.gdb_thread
                )
                temps.append(inserted.number)
            except GdbCommandError as exc:
                self.log(f"line step: no breakpoint at line {line}: {exc.message}")
        return temps

    def end(self) -> None:
        step, self.active = self.active, None
        if step is None:
            return
        for number in step.temps:
            try:
                mi_breakpoint.break_delete(self.gdb, number)
            except GdbCommandError:
                pass  # a temporary breakpoint that was hit is gone already
