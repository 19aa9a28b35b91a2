"""The mixed adapter end to end: a real DAP client over stdio, real gdb, debugpy and Numba.

Line numbers refer to tests/debug/programs/*.py; asserts on jitted lines tolerate Numba's line jumps.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dapclient import DapClient

PROGRAMS = Path(__file__).resolve().parent / "programs"
MIXED = PROGRAMS / "mixed.py"


def frames_of(dap: DapClient, thread_id: int) -> list[tuple[str, int]]:
    return [(f["name"], f.get("line", 0)) for f in dap.top_frames(thread_id)]


def test_python_breakpoint_then_pending_jitted_breakpoint_one_stack(dap: DapClient) -> None:
    launch = dap.start(MIXED, breakpoints={19: {}, 12: {}})
    assert launch["success"], launch
    python_bp, jit_bp = dap.last_breakpoints
    assert python_bp["line"] == 19
    # The jitted line is pending until Numba compiles walk.
    assert jit_bp["verified"] is False and "Pending" in jit_bp["message"]

    stop = dap.stopped()
    assert stop["reason"] == "breakpoint" and stop["hitBreakpointIds"] == [python_bp["id"]]
    thread = stop["threadId"]
    stack = frames_of(dap, thread)
    assert stack[0] == ("main", 19)
    assert all("boot" not in name for name, _ in stack)
    # Python frame variables come from debugpy.
    python_vars = dap.scope_variables(dap.top_frames(thread)[0]["id"])
    assert python_vars["Locals"]["n"]["value"] == "4"

    dap.ok("continue", {"threadId": thread})
    verified = dap.event("breakpoint")
    assert verified["breakpoint"]["id"] == jit_bp["id"] and verified["breakpoint"]["verified"] is True
    stop = dap.stopped()
    assert stop["reason"] == "breakpoint" and stop["hitBreakpointIds"] == [jit_bp["id"]]
    # One list of threads, by native id; the stopped thread is the main thread.
    threads = dap.ok("threads")["threads"]
    assert stop["threadId"] in [t["id"] for t in threads]
    assert any(t["name"].startswith("MainThread") for t in threads if t["id"] == stop["threadId"])
    # debugpy's own threads are not the program's: hidden, as a plain debugpy session hides them.
    assert not any(t["name"].startswith(("debugpy", "python ")) for t in threads), threads
    # One stack: the jitted frame, typed, then its Python callers; no wrapper/dispatcher/C frames.
    stack = frames_of(dap, stop["threadId"])
    assert stack[0][0] == "walk(array(float64, 1d, C), int64)" and 11 <= stack[0][1] <= 12
    assert stack[1] == ("main", 19)
    assert stack[2][0] == "<module>"
    assert not any(name.startswith(("cpython::", "compile_and_invoke", "_PyEval")) for name, _ in stack)
    jit_vars = dap.scope_variables(dap.top_frames(stop["threadId"])[0]["id"])
    assert {"Arguments", "Locals"} <= set(jit_vars)
    assert {"a", "n"} <= set(jit_vars["Arguments"])
    assert {"total", "i", "x"} <= set(jit_vars["Locals"])
    assert not any("$" in name for name in jit_vars["Locals"])  # SSA versions folded
    # The Python caller's locals, read by gdb while it holds the program (read-only).
    caller = dap.top_frames(stop["threadId"])[1]
    caller_vars = dap.scope_variables(caller["id"])["Locals (read-only)"]
    assert caller_vars["n"]["value"] == "4" and caller_vars["a"]["value"] == "ndarray float64 shape (6,)"
    items = dap.ok("variables", {"variablesReference": caller_vars["a"]["variablesReference"]})["variables"]
    assert [(v["name"], v["value"]) for v in items[:3]] == [
        ("dtype", "float64"),
        ("shape", "(6,)"),
        ("[0]", "1.0"),
    ]
    assert "result" not in caller_vars  # not assigned yet

    dap.ok("setBreakpoints", {"source": {"path": str(MIXED)}, "breakpoints": []})
    dap.ok("continue", {"threadId": stop["threadId"]})
    assert dap.event("exited")["exitCode"] == 0
    dap.event("terminated")
    assert "walk: 20.0" in dap.output_text()


def test_internal_frames_shown_on_request(dap: DapClient) -> None:
    assert dap.start(MIXED, breakpoints={12: {}}, showInternalFrames=True)["success"]
    stop = dap.stopped()
    names = [name for name, _ in frames_of(dap, stop["threadId"])]
    assert any("cpython::" in name for name in names)
    assert any("compile_and_invoke" in name or "Dispatcher_call" in name for name in names)
    # debugpy's own threads are listed too, under the native name the debuggee gives them.
    threads = [t["name"] for t in dap.ok("threads")["threads"]]
    assert any(name.startswith("debugpy (") for name in threads), threads


def test_function_breakpoint_and_stop_at_jit_function(dap: DapClient) -> None:
    assert dap.start(MIXED, function_breakpoints=[{"name": "walk"}])["success"]
    (bp,) = dap.last_function_breakpoints
    assert bp["verified"] is False
    stop = dap.stopped()
    assert stop["reason"] == "function breakpoint" and stop["hitBreakpointIds"] == [bp["id"]]
    name, line = frames_of(dap, stop["threadId"])[0]
    assert name.startswith("walk(") and 8 <= line <= 9


def test_stop_at_jit_function_launch_option(dap: DapClient) -> None:
    assert dap.start(MIXED, stopAtJitFunction="walk")["success"]
    stop = dap.stopped()
    name, line = frames_of(dap, stop["threadId"])[0]
    assert name.startswith("walk(") and 8 <= line <= 9
    dap.ok("continue", {"threadId": stop["threadId"]})
    # One-shot: the program runs to its end.
    assert dap.event("exited")["exitCode"] == 0


def test_step_in_over_out_across_the_boundary(dap: DapClient) -> None:
    assert dap.start(MIXED, breakpoints={19: {}})["success"]
    thread = dap.stopped()["threadId"]
    # stepIn on a Python line that calls a jitted function stops at its first line.
    dap.ok("stepIn", {"threadId": thread})
    assert dap.stopped()["reason"] == "step"
    name, line = frames_of(dap, thread)[0]
    assert name.startswith("walk(") and 8 <= line <= 10
    # next follows the lines of the jitted function.
    lines = [line]
    for _ in range(3):
        dap.ok("next", {"threadId": thread})
        assert dap.stopped()["reason"] == "step"
        name, line = frames_of(dap, thread)[0]
        assert name.startswith("walk(")
        lines.append(line)
    assert len(set(lines)) >= 3 and all(8 <= x <= 13 for x in lines)
    # stepOut of the outermost jitted frame returns to the Python caller, on the call's line with the
    # call returned and its result not yet assigned: where debugpy ends a Step Out in pure Python. (Where
    # debugpy traces with sys.monitoring, Python 3.12+, the stop is armed another way: the next line.)
    dap.ok("stepOut", {"threadId": thread})
    assert dap.stopped()["reason"] == "step"
    if sys.version_info < (3, 12):
        assert frames_of(dap, thread)[0] == ("main", 19)
        frame_id = dap.top_frames(thread)[0]["id"]
        assert "result" not in dap.scope_variables(frame_id)["Locals"]
        dap.ok("next", {"threadId": thread})
        assert dap.stopped()["reason"] == "step"
    assert frames_of(dap, thread)[0] == ("main", 20)
    frame_id = dap.top_frames(thread)[0]["id"]
    result = dap.ok("evaluate", {"expression": "result", "frameId": frame_id, "context": "watch"})
    assert result["result"] == "20.0"


def test_next_off_the_end_of_a_jitted_function_lands_in_python(dap: DapClient) -> None:
    assert dap.start(MIXED, breakpoints={13: {}})["success"]
    thread = dap.stopped()["threadId"]
    assert frames_of(dap, thread)[0][0].startswith("walk(")
    for _ in range(4):
        dap.ok("next", {"threadId": thread})
        assert dap.stopped()["reason"] == "step"
        name, _line = frames_of(dap, thread)[0]
        if name == "main":
            break
    assert frames_of(dap, thread)[0] == ("main", 20)


def test_evaluate_in_jitted_frame(dap: DapClient) -> None:
    assert dap.start(MIXED, breakpoints={12: {"hitCondition": "3"}})["success"]
    thread = dap.stopped()["threadId"]
    frame_id = dap.top_frames(thread)[0]["id"]
    assert (
        dap.ok("evaluate", {"expression": "x * 2", "frameId": frame_id, "context": "repl"})["result"] == "6.0"
    )
    assert dap.ok("evaluate", {"expression": "i", "frameId": frame_id, "context": "hover"})["result"] == "2"
    # Hover never runs code with side effects.
    hover = dap.request("evaluate", {"expression": "i = 5", "frameId": frame_id, "context": "hover"})
    assert not hover["success"] or "unavailable" in hover["body"]["result"]
    assert dap.ok("evaluate", {"expression": "i", "frameId": frame_id, "context": "hover"})["result"] == "2"
    bad = dap.request("evaluate", {"expression": "no_such_name", "frameId": frame_id, "context": "repl"})
    assert not bad["success"]
    # The REPL also takes gdb commands after a backquote.
    info = dap.ok("evaluate", {"expression": "`info frame", "frameId": frame_id, "context": "repl"})
    assert "walk" in info["result"]


def test_folded_versions_and_right_argument_values(dap: DapClient) -> None:
    """At NUMBA_OPT=0 gdb reads the argument n as 0 and shows total, total$1, total$2: the adapter
    shows n = 4 (recovered) and one live total."""
    assert dap.start(MIXED, breakpoints={12: {"hitCondition": "3"}})["success"]
    thread = dap.stopped()["threadId"]
    variables = dap.scope_variables(dap.top_frames(thread)[0]["id"])
    arguments, local_vars = variables["Arguments"], variables["Locals"]
    assert arguments["n"]["value"] == "4"
    assert arguments["a"]["value"].startswith("array(float64, 1d, C)")
    assert local_vars["i"]["value"] == "2"
    assert local_vars["x"]["value"] == "3.0"
    # Two iterations done: 1*2 + 2*2.
    assert local_vars["total"]["value"] in ("6.0", "unavailable") or local_vars["total"]["value"].startswith(
        "unavailable"
    )
    assert not [name for name in local_vars if "$" in name]
    elements = dap.ok("variables", {"variablesReference": arguments["a"]["variablesReference"]})["variables"]
    assert [e["value"] for e in elements[:6]] == ["1.0", "2.0", "3.0", "4.0", "5.0", "6.0"]


def test_python_breakpoint_set_while_gdb_holds_the_program(dap: DapClient) -> None:
    """debugpy cannot answer while gdb holds the process: the request is queued, not awaited."""
    assert dap.start(MIXED, breakpoints={12: {}})["success"]
    thread = dap.stopped()["threadId"]
    breakpoints = dap.ok(
        "setBreakpoints", {"source": {"path": str(MIXED)}, "breakpoints": [{"line": 20}]}, timeout=5
    )["breakpoints"]
    (python_bp,) = breakpoints
    assert python_bp["verified"] is False and "resumes" in python_bp["message"]
    # Threads and stacks keep answering from gdb meanwhile.
    assert dap.top_frames(thread)[0]["name"].startswith("walk(")
    dap.ok("continue", {"threadId": thread})
    changed = dap.wait_for(
        lambda m: m.get("event") == "breakpoint" and m["body"]["breakpoint"]["id"] == python_bp["id"],
        120,
        "the Python breakpoint's update",
    )["body"]
    assert changed["breakpoint"]["verified"] is True and changed["breakpoint"]["line"] == 20
    stop = dap.stopped()
    assert stop["hitBreakpointIds"] == [python_bp["id"]]
    assert dap.top_frames(stop["threadId"])[0]["line"] == 20


def test_step_in_to_an_imported_jitted_function(dap: DapClient) -> None:
    program = PROGRAMS / "imported_call.py"
    assert dap.start(program, breakpoints={9: {}})["success"]
    thread = dap.stopped()["threadId"]
    dap.ok("stepIn", {"threadId": thread})
    assert dap.stopped()["reason"] == "step"
    top = dap.top_frames(thread)[0]
    assert top["name"].startswith("walk(") and top["source"]["path"] == str(MIXED) and 8 <= top["line"] <= 10
    # Back in main: on the call's line (where debugpy ends a Step Out; the next line where debugpy traces
    # with sys.monitoring, Python 3.12+), then at the print line, where stepping in on a line without
    # jitted calls is an ordinary step.
    dap.ok("stepOut", {"threadId": thread})
    dap.stopped()
    if sys.version_info < (3, 12):
        assert (dap.top_frames(thread)[0]["name"], dap.top_frames(thread)[0]["line"]) == ("main", 9)
        dap.ok("stepIn", {"threadId": thread})
        assert dap.stopped()["reason"] == "step"
    assert (dap.top_frames(thread)[0]["name"], dap.top_frames(thread)[0]["line"]) == ("main", 10)
    dap.ok("stepIn", {"threadId": thread})
    assert dap.stopped()["reason"] == "step"
    assert (dap.top_frames(thread)[0]["name"], dap.top_frames(thread)[0]["line"]) == ("main", 11)
    assert "imported: 12.0" in dap.wait_output("imported: 12.0")


def test_step_in_to_a_jitted_function_called_as_a_module_attribute(dap: DapClient) -> None:
    program = PROGRAMS / "module_call.py"
    assert dap.start(program, breakpoints={9: {}})["success"]
    thread = dap.stopped()["threadId"]
    dap.ok("stepIn", {"threadId": thread})
    assert dap.stopped()["reason"] == "step"
    top = dap.top_frames(thread)[0]
    assert top["name"].startswith("walk(") and top["source"]["path"] == str(MIXED)


def test_threads_are_one_list_keyed_by_native_id(dap: DapClient) -> None:
    program = PROGRAMS / "threads.py"
    assert dap.start(program, breakpoints={8: {}})["success"]
    stop = dap.stopped()
    threads = {t["id"]: t["name"] for t in dap.ok("threads")["threads"]}
    # The stop names the worker by its native id, which is also how gdb lists it, with its Python name.
    assert stop["threadId"] in threads and threads[stop["threadId"]].startswith("worker-1")
    assert any(name.startswith("MainThread") for name in threads.values())
    frames = dap.top_frames(stop["threadId"])
    assert (frames[0]["name"], frames[0]["line"]) == ("work", 8)
    assert dap.scope_variables(frames[0]["id"])["Locals"]["value"]["value"] == "42"


def test_tuple_named_tuple_and_record_values(dap: DapClient) -> None:
    program = PROGRAMS / "shapes.py"
    assert dap.start(program, breakpoints={16: {}})["success"]
    thread = dap.stopped()["threadId"]
    frame = dap.top_frames(thread)[0]
    assert frame["name"].startswith("shapes(") and frame["line"] == 16
    variables = dap.scope_variables(frame["id"])

    def children(variable: dict) -> list[tuple[str, str]]:
        kids = dap.ok("variables", {"variablesReference": variable["variablesReference"]})["variables"]
        return [(k["name"], k["value"]) for k in kids]

    local_vars = variables["Locals"]
    assert local_vars["t"]["value"] == "(3, 2.5)" and children(local_vars["t"]) == [
        ("[0]", "3"),
        ("[1]", "2.5"),
    ]
    assert local_vars["p"]["value"] == "Point(1.5, 2.5)"
    assert [value for _, value in children(local_vars["p"])] == ["1.5", "2.5"]
    recs = variables["Arguments"]["recs"]
    assert recs["value"].endswith("shape=(2,)")
    # Numba's internal record id (Record<382>) is never shown as if it were the type.
    assert "array(Record(...), 1d, C)" in frame["name"] and "Record<" not in frame["name"], frame["name"]
    assert "Record<" not in recs["value"] + recs.get("type", ""), recs
    records = dap.ok("variables", {"variablesReference": recs["variablesReference"]})["variables"]
    assert [r["value"] for r in records] == ["(7, 0.5)", "(8, 1.5)"]
    assert children(records[1]) == [("id", "8"), ("w", "1.5")]
