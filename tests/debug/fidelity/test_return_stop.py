"""The Step Out to a Python caller (debuggee/inside/pydevd_ext/numba_lens_return_stop.py): the stop
comes right when the call returns, in the caller, on the line of the call, before the rest of the line
runs. pydevd is replaced by a recorder; the jitted callee by a plain function that arms the stop as the
adapter does (through gdb, while the callee runs)."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest

from pyserver.debug.debuggee.inside import PYDEVD_EXTENSIONS
from pyserver.debug.debuggee.snippets import STOP_AT_PYTHON_CALLER_LINE

sys.path.insert(0, str(PYDEVD_EXTENSIONS))

import numba_lens_return_stop


class _Recorder:
    def __init__(self) -> None:
        self.stops: list[tuple[int, dict[str, Any]]] = []

    def set_suspend(self, thread: Any, reason: int, original_step_cmd: int = -1) -> None:
        assert reason == original_step_cmd == 109  # CMD_STEP_RETURN

    def do_wait_suspend(self, thread: Any, frame: types.FrameType, event: str, arg: Any) -> None:
        self.stops.append((frame.f_lineno, dict(frame.f_locals)))


@pytest.fixture
def pydevd() -> Iterator[_Recorder]:
    recorder = _Recorder()
    fake = types.ModuleType("pydevd")
    fake.get_global_debugger = lambda: recorder  # type: ignore[attr-defined]
    bundle = types.ModuleType("_pydevd_bundle")
    constants = types.ModuleType("_pydevd_bundle.pydevd_comm_constants")
    constants.CMD_STEP_RETURN = 109  # type: ignore[attr-defined]
    saved = {
        name: sys.modules.get(name)
        for name in ("pydevd", "_pydevd_bundle", "_pydevd_bundle.pydevd_comm_constants")
    }
    sys.modules.update(
        {"pydevd": fake, "_pydevd_bundle": bundle, "_pydevd_bundle.pydevd_comm_constants": constants}
    )
    try:
        yield recorder
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def _callee(armed: list[bool]) -> float:
    """Stands for the jitted function: the adapter arms the stop while it runs."""
    armed.append(numba_lens_return_stop.stop_on_return_to(sys._getframe(1)))
    return 2.5


def _caller(armed: list[bool]) -> float:
    before = 1.0
    after = before + _callee(armed) * 2  # the call's line
    return after


def test_the_stop_is_on_the_call_line_right_after_the_return(pydevd: _Recorder) -> None:
    armed: list[bool] = []
    call_line = _caller.__code__.co_firstlineno + 2
    previous = sys.gettrace()
    sys.settrace(lambda frame, event, arg: None)  # pydevd's tracing, as in the debuggee (3.11)
    try:
        assert _caller(armed) == 6.0
    finally:
        sys.settrace(previous)
    assert armed == [True]
    assert len(pydevd.stops) == 1
    line, local_values = pydevd.stops[0]
    assert line == call_line
    assert local_values["before"] == 1.0 and "after" not in local_values


def test_without_settrace_tracing_it_is_not_armed(pydevd: _Recorder) -> None:
    armed: list[bool] = []
    previous = sys.gettrace()
    sys.settrace(None)
    try:
        _caller(armed)
    finally:
        sys.settrace(previous)
    assert armed == [False] and pydevd.stops == []


def test_the_adapter_code_falls_back_to_a_step_over_in_the_caller() -> None:
    compile(STOP_AT_PYTHON_CALLER_LINE, "<string>", "exec")
    assert "stop_on_return_to(frame)" in STOP_AT_PYTHON_CALLER_LINE
    assert (
        "if not armed:\n" in STOP_AT_PYTHON_CALLER_LINE
        and "stop_at_frame=frame" in STOP_AT_PYTHON_CALLER_LINE
    )
