"""Debugger depth: in-code breakpoints, parallel threads, reverse steps, through the DAP client."""

from __future__ import annotations

import re
from pathlib import Path

import psutil
from dapclient import DapClient, program_name

PROGRAMS = Path(__file__).resolve().parent / "programs"
IN_CODE = PROGRAMS / "in_code_breaks.py"


def gdb_count(dap: DapClient) -> int:
    children = psutil.Process(dap.proc.pid).children(recursive=True)
    return sum(1 for p in children if program_name(p) == "gdb" and p.status() != psutil.STATUS_ZOMBIE)


def test_gdb_breakpoint_and_gdb_stop_at_the_callers_line_without_a_second_gdb(dap: DapClient) -> None:
    assert dap.start(IN_CODE)["success"]
    # gdb_init() (line 10) does not stop; gdb_breakpoint() (line 14) does, in scaled, not in Numba's helper.
    stop = dap.stopped()
    assert stop["reason"] == "breakpoint"
    top = dap.top_frames(stop["threadId"])[0]
    assert top["name"].startswith("scaled(") and top["line"] in (14, 15), top
    local = dap.scope_variables(top["id"])
    assert any(v.get("value") == "18.0" for scope in local.values() for k, v in scope.items() if k == "total")
    assert gdb_count(dap) == 1
    dap.ok("continue", {"threadId": stop["threadId"]})
    # numba.gdb() (line 16) acts like gdb_breakpoint(): a stop, and still one gdb.
    stop = dap.stopped()
    assert stop["reason"] == "breakpoint"
    top = dap.top_frames(stop["threadId"])[0]
    assert top["name"].startswith("scaled(") and top["line"] in (16, 17), top
    assert gdb_count(dap) == 1
    dap.ok("continue", {"threadId": stop["threadId"]})
    dap.event("exited")
    assert "scaled: 37.0" in dap.output_text()


PARALLEL = PROGRAMS / "parallel_sum.py"
PRANGE_BODY_LINE = 14  # out[r] = row_total   (inside the prange body)


def test_prange_body_breakpoint_stops_worker_threads_with_their_own_locals(dap: DapClient) -> None:
    assert dap.start(PARALLEL, breakpoints={PRANGE_BODY_LINE: {}})["success"]
    stop = dap.stopped()
    assert stop["reason"] == "breakpoint"
    threads = {t["id"]: t["name"] for t in dap.ok("threads")["threads"]}
    assert any(name.startswith("numba worker ") for name in threads.values()), threads
    # The thread that hit the breakpoint is at the body's line, in the user's file, with its own row's total
    # (row r of arange(32).reshape(8, 4) sums to 16 r + 6); other threads in the body can be inspected too.
    rows = {f"{16.0 * r + 6.0}" for r in range(8)}
    in_body = 0
    for thread_id in threads:
        frames = dap.top_frames(thread_id)
        if not frames or not frames[0]["name"].startswith("prange body"):
            continue
        in_body += 1
        top = frames[0]
        assert top["name"] == "prange body of row_sums" and top["source"]["path"] == str(PARALLEL), top
        assert 11 <= top["line"] <= PRANGE_BODY_LINE, top
        row_total = dap.scope_variables(top["id"])["Locals"]["row_total"]["value"]
        if thread_id == stop["threadId"]:
            assert top["line"] == PRANGE_BODY_LINE and row_total in rows, (top, row_total)
        assert [f["name"] for f in frames[1:]] in ([], ["row_sums(array(float64, 2d, C))", "<module>"])
    assert in_body >= 1
    dap.ok("setBreakpoints", {"source": {"path": str(PARALLEL)}, "breakpoints": []})
    dap.ok("continue", {"threadId": stop["threadId"]})
    dap.event("exited")
    assert "sums: [  6.  22.  38.  54.  70.  86. 102. 118.]" in dap.output_text()


MIXED = PROGRAMS / "mixed.py"
WALK_BODY_LINE = 12  # total += x * 2.0   (in the jitted walk)


def local_value(dap: DapClient, thread: int, name: str) -> str:
    frame_id = dap.top_frames(thread)[0]["id"]
    return str(dap.ok("evaluate", {"expression": name, "frameId": frame_id, "context": "watch"})["result"])


def test_reverse_steps_inside_jitted_code(dap: DapClient) -> None:
    assert dap.start(MIXED, breakpoints={WALK_BODY_LINE: {}, 19: {}}, reverse=True)["success"]
    capabilities = dap.event("capabilities")
    assert capabilities["capabilities"]["supportsStepBack"] is True
    # The Python stop (line 19) is not recorded: stepping back there is a clear error.
    stop = dap.stopped()
    refused = dap.request("stepBack", {"threadId": stop["threadId"]})
    assert refused["success"] is False and "jitted" in refused["message"]
    dap.ok("continue", {"threadId": stop["threadId"]})
    stop = dap.stopped()  # i == 0 in walk: recording starts here
    thread = stop["threadId"]
    assert dap.top_frames(thread)[0]["name"].startswith("walk(")
    assert float(local_value(dap, thread, "x")) == 1.0  # a[0]
    threads_before = dap.ok("threads")["threads"]
    dap.ok("continue", {"threadId": thread})
    stop = dap.stopped()
    # A Continue while recording: the thread list is still right (gdb 13 lets the other threads run on
    # then, and -thread-info fails on their registers), and the stopped thread has its stack.
    assert dap.ok("threads")["threads"] == threads_before
    assert dap.top_frames(thread)[0]["name"].startswith("walk(")
    assert float(local_value(dap, thread, "x")) == 2.0 and float(local_value(dap, thread, "total")) == 2.0
    # Back in time: the previous hit of the breakpoint, with the values of then.
    dap.ok("reverseContinue", {"threadId": thread})
    stop = dap.stopped()
    assert stop["reason"] in ("breakpoint", "step")
    assert float(local_value(dap, thread, "x")) == 1.0  # the first iteration again
    # Forward one line, then one line back: the body line of the first iteration again.
    dap.ok("next", {"threadId": thread})
    dap.stopped()
    assert dap.top_frames(thread)[0]["line"] != WALK_BODY_LINE
    dap.ok("stepBack", {"threadId": thread})
    stop = dap.stopped()
    # The step back ends where the breakpoint is: gdb 16 and newer report that arrival as the breakpoint's
    # hit (as a forward step onto a breakpoint always was), gdb 13 as the step's end.
    assert stop["reason"] == "step" or (stop["reason"] == "breakpoint" and stop.get("hitBreakpointIds")), stop
    top = dap.top_frames(thread)[0]
    assert top["name"].startswith("walk(") and top["line"] == WALK_BODY_LINE, top
    assert float(local_value(dap, thread, "x")) == 1.0
    # Breakpoints cleared while recording (the Python one included): the program runs to its end.
    dap.ok("setBreakpoints", {"source": {"path": str(MIXED)}, "breakpoints": []})
    dap.ok("continue", {"threadId": thread})
    assert dap.event("exited", timeout=60)["exitCode"] == 0
    assert "walk: 20.0" in dap.output_text()


ARRAY_EXPR = PROGRAMS / "array_expr.py"
SERIAL_EXPR_LINE = 11  # c = a * b + 1.0   (in scale_add)
PARALLEL_EXPR_LINE = 19  # c = a * b + 1.0   (in scale_add_parallel, parallel=True)
SIZE = 2000  # c[i] = 2 i + 1, so c.sum() + n = SIZE**2 + SIZE


def assert_no_generated_frames(frames: list[dict]) -> None:
    """Numba's generated kernels and library code are never shown as the user's frames."""
    for frame in frames:
        assert "__numba_array_expr" not in frame["name"] and "_broadcast_onto" not in frame["name"], frame
        path = (frame.get("source") or {}).get("path", "")
        assert "site-packages/numba/" not in path or frame.get("presentationHint") == "subtle", frame


def test_array_expression_lines_stop_and_step_in_the_users_function(dap: DapClient) -> None:
    breakpoints = {SERIAL_EXPR_LINE: {}, PARALLEL_EXPR_LINE: {}}
    assert dap.start(ARRAY_EXPR, breakpoints=breakpoints)["success"]
    stop = dap.stopped()
    thread = stop["threadId"]
    assert stop["reason"] == "breakpoint"
    frames = dap.top_frames(thread)
    top = frames[0]
    assert top["name"] == "scale_add(array(float64, 1d, C), array(float64, 1d, C))", top
    assert top["source"]["path"] == str(ARRAY_EXPR) and top["line"] == SERIAL_EXPR_LINE, top
    assert_no_generated_frames(frames)
    local = dap.scope_variables(top["id"])
    assert local["Locals"]["n"]["value"] == str(SIZE)
    assert local["Arguments"]["a"]["value"].startswith("array(float64, 1d, C)")
    assert float(local_value(dap, thread, "a[3]")) == 3.0 and float(local_value(dap, thread, "b[3]")) == 2.0
    # Step in: the line's generated kernel (called once per element) and Numba's own helpers are not
    # the user's code, so one step goes to the next line of scale_add, with c computed.
    dap.ok("stepIn", {"threadId": thread})
    stop = dap.stopped()
    assert stop["reason"] == "step"
    frames = dap.top_frames(thread)
    assert frames[0]["name"].startswith("scale_add(") and frames[0]["line"] == SERIAL_EXPR_LINE + 1, frames[0]
    assert_no_generated_frames(frames)
    assert float(local_value(dap, thread, "c[0]")) == 1.0
    assert float(local_value(dap, thread, f"c[{SIZE - 1}]")) == 2.0 * (SIZE - 1) + 1.0
    dap.ok("next", {"threadId": thread})
    dap.stopped()
    assert dap.top_frames(thread)[0]["line"] == SERIAL_EXPR_LINE + 2
    assert float(local_value(dap, thread, "total")) == float(SIZE**2 + SIZE)
    # parallel=True: the expression becomes a parfor run by worker threads; the breakpoint stops the
    # calling thread in the user's function, and one step over goes to the next line.
    dap.ok("continue", {"threadId": thread})
    stop = dap.stopped()
    thread = stop["threadId"]
    assert stop["reason"] == "breakpoint"
    frames = dap.top_frames(thread)
    assert frames[0]["name"].startswith("scale_add_parallel(") and frames[0]["line"] == PARALLEL_EXPR_LINE
    assert_no_generated_frames(frames)
    assert dap.scope_variables(frames[0]["id"])["Locals"]["n"]["value"] == str(SIZE)
    dap.ok("next", {"threadId": thread})
    stop = dap.stopped()
    assert stop["reason"] == "step"
    frames = dap.top_frames(thread)
    assert frames[0]["name"].startswith("scale_add_parallel(") and frames[0]["line"] == PARALLEL_EXPR_LINE + 1
    # Numba fuses the expression with c.sum() into one parfor (no `c` remains); the sum is right.
    dap.ok("next", {"threadId": thread})
    dap.stopped()
    assert dap.top_frames(thread)[0]["line"] == PARALLEL_EXPR_LINE + 2
    assert float(local_value(dap, thread, "total")) == float(SIZE**2 + SIZE)
    dap.ok("continue", {"threadId": thread})
    dap.event("exited")
    text = dap.output_text()
    assert f"serial: {float(SIZE**2 + SIZE)}" in text and f"parallel: {float(SIZE**2 + SIZE)}" in text, text


def test_a_stop_inside_the_generated_kernel_is_shown_and_stepped_as_the_users_line(dap: DapClient) -> None:
    """Where a pause lands during a long array expression: inside the generated kernel. The kernel is an
    internal frame (no source: its debug info says line 1 of the user's file); the user's frame is on the
    expression's line; a step goes on from the user's line, not from the kernel's."""
    assert dap.start(ARRAY_EXPR, breakpoints={SERIAL_EXPR_LINE: {}}, showInternalFrames=True)["success"]
    stop = dap.stopped()
    thread = stop["threadId"]
    top = dap.top_frames(thread)[0]
    inserted = dap.ok(
        "evaluate",
        {
            "expression": "`rbreak ^_3cdynamic_3e::__numba_array_expr_",
            "frameId": top["id"],
            "context": "repl",
        },
    )["result"]
    kernel_bp = re.search(r"Breakpoint (\d+) at", inserted)
    assert kernel_bp is not None, inserted
    dap.ok("continue", {"threadId": thread})
    stop = dap.stopped()
    frames = dap.top_frames(thread)
    kernel = frames[0]
    assert "__numba_array_expr_" in kernel["name"] and kernel["presentationHint"] == "subtle", kernel
    assert "source" not in kernel and kernel["line"] == 0, kernel
    users = [f for f in frames if f.get("presentationHint") != "subtle"]
    assert users[0]["name"].startswith("scale_add(") and users[0]["line"] == SERIAL_EXPR_LINE, users[0]
    assert users[0]["source"]["path"] == str(ARRAY_EXPR)
    assert dap.scope_variables(users[0]["id"])["Locals"]["n"]["value"] == str(SIZE)
    dap.ok(
        "evaluate",
        {"expression": f"`delete {kernel_bp.group(1)}", "frameId": users[0]["id"], "context": "repl"},
    )
    dap.ok("next", {"threadId": thread})
    assert dap.stopped()["reason"] == "step"
    top = dap.top_frames(thread)[0]
    assert top["name"].startswith("scale_add(") and top["line"] == SERIAL_EXPR_LINE + 1, top
    assert float(local_value(dap, thread, f"c[{SIZE - 1}]")) == 2.0 * (SIZE - 1) + 1.0
    dap.ok("disconnect", {"terminateDebuggee": True})
