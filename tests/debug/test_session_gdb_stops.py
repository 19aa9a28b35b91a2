"""What the jitted side makes of gdb's stops, over a scripted gdb (tests/debug/session_doubles.py): which
become the editor's stopped events (with our breakpoint ids and native thread ids), which are absorbed
and resumed, and the program's end. No process is started."""

from __future__ import annotations

from session_doubles import ScriptedGdb, session_with_gdb, stream_of

from pyserver.debug.session.stop import StopOwner

NATIVE = 4242


def _hit(gdb: ScriptedGdb, number: str, **frame: object) -> None:
    gdb.emit(
        "stopped", {"reason": "breakpoint-hit", "bkptno": number, "thread-id": "1", "frame": dict(frame)}
    )


def test_a_function_breakpoint_hit_is_the_editors_stop_with_our_id() -> None:
    gdb = ScriptedGdb()
    session, _jit = session_with_gdb(gdb)
    session.threads.set_gdb_threads({NATIVE: "1"})
    created = session.on_set_function_breakpoints({"breakpoints": [{"name": "walk"}]})["breakpoints"][0]
    assert created["verified"] is False and "Pending" in created["message"]
    assert any("__main__::walk" in c for c in gdb.commands)
    _hit(gdb, "1", func="walk", line="3")
    assert session.stop.owner is StopOwner.JIT and session.stop.thread == NATIVE
    assert stream_of(session).named("stopped") == [
        {
            "threadId": NATIVE,
            "allThreadsStopped": True,
            "reason": "function breakpoint",
            "hitBreakpointIds": [created["id"]],
        }
    ]


def test_a_log_point_prints_and_runs_on() -> None:
    gdb = ScriptedGdb(value="7")
    session, jit = session_with_gdb(gdb)
    session.threads.set_gdb_threads({NATIVE: "1"})
    session.on_set_function_breakpoints({"breakpoints": [{"name": "walk"}]})
    bp = jit.breakpoints.hit("1")
    assert bp is not None
    bp.log_message = "n is {n}"
    _hit(gdb, "1")
    assert {"category": "console", "output": "n is 7\n"} in stream_of(session).named("output")
    assert stream_of(session).named("stopped") == [] and session.stop.owner is None
    assert gdb.resumes() == ["-exec-continue"]


def test_a_hit_count_modulo_stops_every_nth_hit() -> None:
    gdb = ScriptedGdb()
    session, _jit = session_with_gdb(gdb)
    session.threads.set_gdb_threads({NATIVE: "1"})
    session.on_set_function_breakpoints({"breakpoints": [{"name": "walk", "hitCondition": "%2"}]})
    _hit(gdb, "1")
    assert stream_of(session).named("stopped") == [] and len(gdb.resumes()) == 1
    _hit(gdb, "1")
    assert len(stream_of(session).named("stopped")) == 1 and len(gdb.resumes()) == 1


def test_a_deleted_breakpoints_late_hit_is_no_stop() -> None:
    gdb = ScriptedGdb()
    session, _jit = session_with_gdb(gdb)
    session.threads.set_gdb_threads({NATIVE: "1"})
    session.on_set_function_breakpoints({"breakpoints": [{"name": "walk"}]})
    session.on_set_function_breakpoints({"breakpoints": []})
    assert "-break-delete 1" in gdb.commands
    _hit(gdb, "1")
    assert stream_of(session).named("stopped") == [] and gdb.resumes() == ["-exec-continue"]


def test_a_signal_stop_is_an_exception_with_its_info() -> None:
    gdb = ScriptedGdb()
    session, _jit = session_with_gdb(gdb)
    session.threads.set_gdb_threads({NATIVE: "1"})
    gdb.emit(
        "stopped",
        {
            "reason": "signal-received",
            "signal-name": "SIGSEGV",
            "signal-meaning": "Segmentation fault",
            "thread-id": "1",
            "frame": {"file": "prog.py", "line": "9"},
        },
    )
    stopped = stream_of(session).named("stopped")[0]
    assert stopped is not None and stopped["reason"] == "exception" and stopped["text"] == "SIGSEGV"
    info = session.on_exception_info({"threadId": NATIVE})
    assert info["exceptionId"] == "SIGSEGV" and info["breakMode"] == "always"
    assert "prog.py:9" in info["description"]
    session.on_continue({"threadId": NATIVE})
    assert session.stop.owner is None and session.stop.signal == {}


def test_the_programs_exit_ends_the_session() -> None:
    gdb = ScriptedGdb()
    session, _jit = session_with_gdb(gdb)
    gdb.emit("stopped", {"reason": "exited", "exit-code": "03"})
    stream = stream_of(session)
    assert stream.named("exited") == [{"exitCode": 3}] and len(stream.named("terminated")) == 1
    assert session.debuggee.ended.is_set()
