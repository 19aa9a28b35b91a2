"""The session's thread registry, breakpoint routing and debugpy's events, with doubles
(tests/debug/session_doubles.py): no process is started."""

from __future__ import annotations

import threading
from pathlib import Path

from session_doubles import TableDebugpy, build_session, stream_of

from pyserver.debug.session.stop import StopOwner
from pyserver.debug.session.threads import ThreadRegistry

SOURCE = """\
from numba import njit, prange


def plain(x):
    return x + 1


@njit(parallel=True)
def total(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@njit
def double(a):
    return a * 2
"""
PLAIN_LINE, TOTAL_LINE, PRANGE_LINE, DOUBLE_LINE = 5, 10, 12, 18


def test_thread_ids_without_gdb_are_debugpys() -> None:
    registry = ThreadRegistry(threading.RLock())
    assert registry.debugpy_thread(7) == 7 and registry.known_native_of_debugpy(7) == 7


def test_thread_ids_with_gdb_are_native_and_mapped_both_ways() -> None:
    registry = ThreadRegistry(threading.RLock())
    registry.use_native_ids()
    assert registry.known_native_of_debugpy(3) is None
    registry.add_debugpy_thread(3, 4242)
    registry.name_debugpy_thread(3, "MainThread")
    assert registry.known_native_of_debugpy(3) == 4242 and registry.debugpy_thread(4242) == 3
    assert registry.debugpy_thread(9999) == 9999  # unknown to debugpy: the native id as it is
    assert registry.debugpy_names_by_native() == {4242: "MainThread"}
    registry.set_gdb_threads({4242: "1", 4243: "2"})
    assert registry.gdb_thread(4243) == "2" and registry.native_of_gdb("2") == 4243
    assert registry.gdb_thread_or_first(None) == "1" and registry.native_of_gdb("9") is None
    registry.add_gdb_thread(4244, "3")
    assert registry.native_of_gdb("3") == 4244 and registry.gdb_thread(4242) == "1"
    assert [registry.name_worker(n, "numba worker") for n in (4243, 4244)] == [
        "numba worker 1",
        "numba worker 2",
    ]
    assert registry.worker_name(4244) == "numba worker 2"


def test_lines_in_jitted_functions_go_to_gdb_and_the_rest_to_debugpy(tmp_path: Path) -> None:
    path = tmp_path / "prog.py"
    path.write_text(SOURCE, encoding="utf-8")
    debugpy = TableDebugpy(
        {
            "setBreakpoints": lambda args: {
                "breakpoints": [{"id": 70 + i, "verified": True} for i, _ in enumerate(args["breakpoints"])]
            }
        }
    )
    session, jit = build_session(with_gdb=True, debugpy=debugpy)
    assert jit is not None
    lines = [PLAIN_LINE, TOTAL_LINE, PRANGE_LINE, DOUBLE_LINE]
    body = session.on_set_breakpoints(
        {"source": {"path": str(path)}, "breakpoints": [{"line": n} for n in lines]}
    )
    routed = {bp.args["line"]: bp.gdb_file for bp in jit.line_breakpoints}
    assert routed == {TOTAL_LINE: None, PRANGE_LINE: "<string>", DOUBLE_LINE: None}
    command, args = debugpy.requests[-1]
    assert command == "setBreakpoints" and args["breakpoints"] == [{"line": PLAIN_LINE}]
    results = body["breakpoints"]
    assert [r["verified"] for r in results] == [True, True, True, True]
    assert [r["id"] for r in results[1:]] == [501, 502, 503]
    # debugpy's id is translated to ours, in its events too.
    ours = results[0]["id"]
    assert ours != 70 and session.breakpoints.our_bp_id(70) == ours
    # The prange body's gufunc frame is named after the one file with prange breakpoints.
    assert session.breakpoints.parfor_frame("<string>") == ("prange body of total", str(path))


def test_without_gdb_every_line_goes_to_debugpy(tmp_path: Path) -> None:
    path = tmp_path / "prog.py"
    path.write_text(SOURCE, encoding="utf-8")
    session, _ = build_session(with_gdb=False)
    body = session.on_set_breakpoints({"source": {"path": str(path)}, "breakpoints": [{"line": DOUBLE_LINE}]})
    assert (
        body["breakpoints"][0]["message"] == "Waiting for debugpy" and not body["breakpoints"][0]["verified"]
    )


def test_python_breakpoints_set_while_gdb_holds_the_program_wait_for_the_resume(tmp_path: Path) -> None:
    path = tmp_path / "prog.py"
    path.write_text(SOURCE, encoding="utf-8")
    debugpy = TableDebugpy({"setBreakpoints": {"breakpoints": [{"id": 1, "verified": True}]}})
    session, _jit = build_session(with_gdb=True, debugpy=debugpy)
    session.stop.take(StopOwner.JIT, 101)
    body = session.on_set_breakpoints({"source": {"path": str(path)}, "breakpoints": [{"line": PLAIN_LINE}]})
    assert body["breakpoints"][0]["message"] == "Set when the program resumes (gdb holds it now)"
    # The answer (here at once) is sent as a breakpoint event; the request waits in the backlog.
    assert stream_of(session).named("breakpoint")[0]["breakpoint"]["verified"] is True  # type: ignore[index]
    assert session.python.take_backlog() == []  # answered already: nothing to sync


def test_function_breakpoints_go_to_gdb_when_it_is_there() -> None:
    session, jit = build_session(with_gdb=True, debugpy=TableDebugpy())
    assert jit is not None
    assert (
        session.on_set_function_breakpoints({"breakpoints": [{"name": "walk"}]})["breakpoints"][0]["id"]
        == 900
    )
    assert jit.calls[-1] == ("function breakpoints", ["walk"])

    debugpy = TableDebugpy({"setFunctionBreakpoints": {"breakpoints": [{"id": 33, "verified": True}]}})
    python_only, _ = build_session(with_gdb=False, debugpy=debugpy)
    result = python_only.on_set_function_breakpoints({"breakpoints": [{"name": "pkg::walk"}]})["breakpoints"]
    assert debugpy.requests[-1] == ("setFunctionBreakpoints", {"breakpoints": [{"name": "walk"}]})
    assert result[0]["verified"] and python_only.breakpoints.our_bp_id(33) == result[0]["id"]


def test_a_debugpy_stop_takes_the_stop_with_native_ids_and_our_breakpoint_ids(tmp_path: Path) -> None:
    path = tmp_path / "prog.py"
    path.write_text(SOURCE, encoding="utf-8")
    debugpy = TableDebugpy({"setBreakpoints": {"breakpoints": [{"id": 70, "verified": True}]}})
    session, jit = build_session(with_gdb=True, debugpy=debugpy)
    assert jit is not None
    ours = session.on_set_breakpoints({"source": {"path": str(path)}, "breakpoints": [{"line": PLAIN_LINE}]})[
        "breakpoints"
    ][0]["id"]
    session.threads.add_debugpy_thread(3, 4242)
    debugpy.emit("stopped", {"threadId": 3, "reason": "breakpoint", "hitBreakpointIds": [70]})
    assert session.stop.owner is StopOwner.PYTHON and session.stop.thread == 4242
    assert stream_of(session).named("stopped")[-1] == {
        "threadId": 4242,
        "reason": "breakpoint",
        "hitBreakpointIds": [ours],
    }
    assert ("delete step in",) in jit.calls
    debugpy.emit("continued", {"threadId": 3})
    assert session.stop.owner is None
    # With gdb, the thread list is gdb's: debugpy's thread events are not the editor's.
    debugpy.emit("thread", {"threadId": 3, "reason": "started"})
    assert stream_of(session).named("thread") == []


def test_a_debugpy_thread_is_asked_its_native_id_once() -> None:
    debugpy = TableDebugpy(
        {
            "threads": {"threads": [{"id": 3, "name": "worker"}]},
            "stackTrace": {"stackFrames": [{"id": 9}]},
            "evaluate": {"result": "5151"},
        }
    )
    session, _ = build_session(with_gdb=True, debugpy=debugpy)
    debugpy.emit("stopped", {"threadId": 3, "reason": "pause"})
    debugpy.emit("stopped", {"threadId": 3, "reason": "pause"})
    assert session.stop.thread == 5151 and debugpy.commands().count("evaluate") == 1
    assert session.threads.debugpy_names_by_native() == {5151: "worker"}
