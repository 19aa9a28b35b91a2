"""The session's coordination, with doubles (tests/debug/session_doubles.py): a request about a stop goes
to the side that owns it, a frame or variable reference to the side that made it, and the stop state
moves as the program stops and resumes. No process is started."""

from __future__ import annotations

import pytest
from session_doubles import TableDebugpy, build_session, stream_of

from pyserver.debug.dap import DapError
from pyserver.debug.session.side import FrameKind, StepKind
from pyserver.debug.session.stop import StopOwner
from pyserver.debug.stop_intent import IntentKind

PYTHON_FRAMES = {
    "stackFrames": [
        {"id": 7, "name": "main", "line": 12, "source": {"path": "/prog.py"}},
        {"id": 8, "name": "<module>", "line": 30, "source": {"path": "/prog.py"}},
    ]
}


def test_the_session_holds_at_most_ten_attributes() -> None:
    session, _ = build_session(with_gdb=False)
    assert len(vars(session)) <= 10, sorted(vars(session))


def test_a_stack_trace_goes_to_the_side_that_owns_the_stop() -> None:
    debugpy = TableDebugpy({"stackTrace": PYTHON_FRAMES})
    session, jit = build_session(with_gdb=True, debugpy=debugpy)
    assert jit is not None
    session.threads.add_debugpy_thread(3, 101)

    session.stop.take(StopOwner.JIT, 101)
    body = session.on_stack_trace({"threadId": 101})
    assert jit.calls == [("stack", 101)] and "stackTrace" not in debugpy.commands()
    assert [f["name"] for f in body["stackFrames"]] == ["jitted"]

    session.stop.take(StopOwner.PYTHON, 101)
    body = session.on_stack_trace({"threadId": 101, "startFrame": 1, "levels": 1})
    assert jit.calls == [("stack", 101)]
    assert debugpy.requests[-1] == ("stackTrace", {"threadId": 3, "startFrame": 0, "levels": 0})
    assert [f["name"] for f in body["stackFrames"]] == ["<module>"] and body["totalFrames"] == 2
    # Our frame ids, not debugpy's.
    assert body["stackFrames"][0]["id"] not in (7, 8)


def test_a_stack_trace_while_the_program_runs_is_refused_quietly_in_mixed_mode() -> None:
    # The editor's request for the rest of a stack can arrive after its Continue: debugpy cannot answer
    # while jitted code runs, so it is never asked (it would time out, shown as an error).
    debugpy = TableDebugpy({"stackTrace": PYTHON_FRAMES})
    session, jit = build_session(with_gdb=True, debugpy=debugpy)
    assert jit is not None
    session.threads.add_debugpy_thread(3, 101)
    session.stop.take(StopOwner.JIT, 101)
    session.stop.resumed()
    with pytest.raises(DapError) as refused:
        session.on_stack_trace({"threadId": 101, "startFrame": 1, "levels": 19})
    assert not refused.value.show_user
    assert jit.calls == [] and "stackTrace" not in debugpy.commands()
    # Without gdb (mode python) debugpy answers for a running program as it does alone.
    python_only, _ = build_session(with_gdb=False, debugpy=TableDebugpy({"stackTrace": PYTHON_FRAMES}))
    python_only.threads.add_debugpy_thread(3, 101)
    assert len(python_only.on_stack_trace({"threadId": 101})["stackFrames"]) == 2


def test_scopes_and_variables_go_to_the_side_that_made_the_frame() -> None:
    debugpy = TableDebugpy(
        {
            "stackTrace": PYTHON_FRAMES,
            "scopes": {"scopes": [{"name": "Locals", "variablesReference": 40}]},
            "variables": lambda args: {"variables": [{"name": f"child of {args['variablesReference']}"}]},
        }
    )
    session, jit = build_session(with_gdb=True, debugpy=debugpy)
    assert jit is not None
    session.stop.take(StopOwner.PYTHON, 101)
    python_frame = session.on_stack_trace({"threadId": 101})["stackFrames"][0]["id"]
    scopes = session.on_scopes({"frameId": python_frame})["scopes"]
    assert debugpy.requests[-1] == ("scopes", {"frameId": 7})
    ours = scopes[0]["variablesReference"]
    assert ours not in (0, 40)
    assert session.on_variables({"variablesReference": ours})["variables"] == [
        {"name": "child of 40", "variablesReference": 0}
    ]

    session.stop.take(StopOwner.JIT, 101)
    jit_frame = session.on_stack_trace({"threadId": 101})["stackFrames"][0]["id"]
    assert session.on_scopes({"frameId": jit_frame})["scopes"][0]["name"] == "Locals"
    assert jit.calls[-1] == ("scopes", FrameKind.JIT)


def test_a_stop_forgets_the_last_stops_handles() -> None:
    session, _jit = build_session(with_gdb=True)
    session.stop.take(StopOwner.JIT, 101)
    frame = session.on_stack_trace({"threadId": 101})["stackFrames"][0]["id"]
    session.stop.resumed()
    with pytest.raises(DapError, match="frame is gone"):
        session.on_scopes({"frameId": frame})
    assert session.on_variables({"variablesReference": 12345}) == {"variables": []}


def test_evaluate_without_a_frame_goes_to_the_owner_and_with_one_to_its_side() -> None:
    debugpy = TableDebugpy(
        {"evaluate": {"result": "py", "variablesReference": 0}, "stackTrace": PYTHON_FRAMES}
    )
    session, jit = build_session(with_gdb=True, debugpy=debugpy)
    assert jit is not None
    session.stop.take(StopOwner.JIT, 101)
    assert session.on_evaluate({"expression": "x"})["result"] == "gdb"
    session.stop.take(StopOwner.PYTHON, 101)
    frame = session.on_stack_trace({"threadId": 101})["stackFrames"][0]["id"]
    assert session.on_evaluate({"expression": "x", "frameId": frame})["result"] == "py"
    assert debugpy.requests[-1] == ("evaluate", {"expression": "x", "frameId": 7})


def test_without_any_side_requests_say_the_program_is_not_running() -> None:
    session, _ = build_session(with_gdb=False)
    assert session.on_threads({}) == {"threads": []}
    with pytest.raises(DapError, match="not stopped"):
        session.on_stack_trace({"threadId": 1})
    with pytest.raises(DapError, match="not running"):
        session.on_evaluate({"expression": "1"})
    with pytest.raises(DapError, match="running"):
        session.on_continue({"threadId": 1})
    with pytest.raises(DapError, match="No exception information"):
        session.on_exception_info({"threadId": 1})


def test_continue_and_steps_go_to_the_owner() -> None:
    debugpy = TableDebugpy()
    session, jit = build_session(with_gdb=True, debugpy=debugpy)
    assert jit is not None
    session.threads.add_debugpy_thread(3, 101)

    session.stop.take(StopOwner.JIT, 101)
    assert session.on_continue({"threadId": 101}) == {"allThreadsContinued": True}
    assert jit.calls[-1] == ("resume", 101) and session.stop.owner is None

    session.stop.take(StopOwner.JIT, 101)
    session.on_step_out({"threadId": 101})
    assert jit.calls[-1] == ("step", 101, StepKind.OUT)

    session.stop.take(StopOwner.PYTHON, 101)
    session.on_next({"threadId": 101})
    assert debugpy.requests[-1] == ("next", {"threadId": 3})
    assert session.stop.owner is None
    assert session.stop.intent.kind is IntentKind.STEP and session.stop.intent.python_step_thread == 3

    session.stop.take(StopOwner.PYTHON, 101)
    session.on_continue({"threadId": 101})
    assert debugpy.requests[-1] == ("continue", {"threadId": 3})
    assert session.stop.intent.kind is IntentKind.CONTINUE


def test_a_step_into_from_python_arms_the_jitted_functions_it_may_call() -> None:
    debugpy = TableDebugpy(
        {
            "stackTrace": PYTHON_FRAMES,
            "evaluate": {
                "result": "[('__main__', 'walk'), ('pkg.kernels', 'Grid.step'), ('__main__', 'f.<locals>.g')]"
            },
        }
    )
    session, jit = build_session(with_gdb=True, debugpy=debugpy)
    assert jit is not None
    session.stop.take(StopOwner.PYTHON, 5)
    session.on_step_in({"threadId": 5})
    assert ("arm step in", ["__main__::walk", "pkg::kernels::Grid::step"]) in jit.calls
    # debugpy steps over the line: gdb's temporary breakpoints stop in the jitted callee.
    assert debugpy.requests[-1] == ("next", {"threadId": 5})


def test_pause_falls_back_to_gdb_when_debugpy_cannot_answer() -> None:
    session, jit = build_session(with_gdb=True, debugpy=TableDebugpy())
    assert jit is not None
    session.on_pause({})  # no stopped event comes from the double
    assert jit.calls[-1] == ("interrupt",)
    assert session.stop.intent.drop_debugpy_pause
    session.stop.take(StopOwner.JIT, 101)
    calls = len(jit.calls)
    session.on_pause({})  # stopped already: nothing to do
    assert len(jit.calls) == calls


def test_step_back_needs_gdb_recording() -> None:
    session, _ = build_session(with_gdb=False, debugpy=TableDebugpy())
    session.stop.take(StopOwner.PYTHON, 1)
    with pytest.raises(DapError, match='"reverse": true'):
        session.on_step_back({"threadId": 1})


def test_stop_state_transitions() -> None:
    session, _ = build_session(with_gdb=False)
    stop = session.stop
    assert stop.owner is None and stop.thread is None
    with pytest.raises(DapError):
        stop.require_stopped()
    stop.take(StopOwner.JIT, 42)
    assert stop.require_stopped() is StopOwner.JIT and stop.thread == 42 and stop.held_by(StopOwner.JIT)
    stop.stopped_by_signal({"exceptionId": "SIGFPE"})
    assert stop.signal == {"exceptionId": "SIGFPE"}
    before = stop.update_intent(kind=IntentKind.PAUSE)
    assert before.kind is IntentKind.RUN and stop.intent.kind is IntentKind.PAUSE
    stop.resumed()
    assert stop.owner is None and stop.thread is None and stop.signal == {}
    assert stop.intent.kind is IntentKind.PAUSE  # what the next stop means outlives the resume


def test_terminate_reports_the_exit_and_terminated_once() -> None:
    session, jit = build_session(with_gdb=True)
    assert jit is not None
    session.on_terminate({})
    session.on_disconnect({})
    stream = stream_of(session)
    assert stream.named("exited") == [{"exitCode": 137}]
    assert len(stream.named("terminated")) == 1
    assert ("close",) in jit.calls
