"""Conditional, hit-count and log breakpoints in jitted code (gdb) and in Python (debugpy)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from dapclient import DapClient

LOOPS = Path(__file__).resolve().parent / "programs" / "loops.py"
JIT_LINE = 11  # total += a[i]    (inside the jitted accumulate)
PY_LINE = 19  # results.append(accumulate(a) + k)


def value_of(dap: DapClient, thread: int, name: str) -> str:
    frame_id = dap.top_frames(thread)[0]["id"]
    return str(dap.ok("evaluate", {"expression": name, "frameId": frame_id, "context": "watch"})["result"])


def test_conditions_in_both_worlds(dap: DapClient) -> None:
    assert dap.start(
        LOOPS, breakpoints={PY_LINE: {"condition": "k == 2"}, JIT_LINE: {"condition": "i == 3"}}
    )["success"]
    # First stop: the jitted condition during the first call (k == 0).
    stop = dap.stopped()
    assert dap.top_frames(stop["threadId"])[0]["name"].startswith("accumulate(")
    assert value_of(dap, stop["threadId"], "i") == "3"
    # Only the Python breakpoint is left: it stops when k == 2.
    dap.ok(
        "setBreakpoints",
        {"source": {"path": str(LOOPS)}, "breakpoints": [{"line": PY_LINE, "condition": "k == 2"}]},
    )
    dap.ok("continue", {"threadId": stop["threadId"]})
    stop = dap.stopped()
    assert dap.top_frames(stop["threadId"])[0]["name"] == "main"
    assert value_of(dap, stop["threadId"], "k") == "2"


def test_hit_counts_in_both_worlds(dap: DapClient) -> None:
    assert dap.start(LOOPS, breakpoints={JIT_LINE: {"hitCondition": "4"}, PY_LINE: {"hitCondition": "3"}})[
        "success"
    ]
    # The jitted line's 4th hit comes first, in the first call (k == 0)...
    stop = dap.stopped()
    assert dap.top_frames(stop["threadId"])[0]["name"].startswith("accumulate(")
    assert value_of(dap, stop["threadId"], "i") == "3"
    # A hit count N stops once, at the N-th hit (as debugpy does), so the jitted line does not stop again.
    dap.ok("continue", {"threadId": stop["threadId"]})
    # ...then the Python line's 3rd hit (k == 2).
    stop = dap.stopped()
    assert dap.top_frames(stop["threadId"])[0]["name"] == "main"
    assert value_of(dap, stop["threadId"], "k") == "2"


def test_log_points_in_both_worlds(dap: DapClient) -> None:
    assert dap.start(
        LOOPS, breakpoints={JIT_LINE: {"logMessage": "i={i}"}, PY_LINE: {"logMessage": "k is {k}"}}
    )["success"]
    assert dap.event("exited")["exitCode"] == 0
    dap.event("terminated")
    assert not dap.events("stopped")
    text = dap.output_text()
    assert re.findall(r"k is (\d)", text) == ["0", "1", "2", "3", "4"]
    jit_logs = re.findall(r"^i=(\d+)$", text, flags=re.M)
    assert len(jit_logs) == 50 and jit_logs[:10] == [str(i) for i in range(10)]
    # The program's line arrives whole, though debugpy's log points (another channel, sent by a thread
    # of the debuggee) may come before or after it.
    assert re.search(r"^results: \[45.0, 46.0, 47.0, 48.0, 49.0\]$", text, flags=re.M)


def test_every_nth_hit_in_jitted_code(dap: DapClient) -> None:
    assert dap.start(LOOPS, breakpoints={JIT_LINE: {"hitCondition": "%4"}})["success"]
    seen = []
    for _ in range(2):
        stop = dap.stopped()
        seen.append(value_of(dap, stop["threadId"], "i"))
        dap.ok("continue", {"threadId": stop["threadId"]})
    assert seen == ["3", "7"]
    bad = dap.ok(
        "setBreakpoints",
        {"source": {"path": str(LOOPS)}, "breakpoints": [{"line": JIT_LINE, "hitCondition": "odd"}]},
    )
    assert bad["breakpoints"][0]["verified"] is False and "Hit count" in bad["breakpoints"][0]["message"]


LOOP_HEADER_LINE = 10  # for i in range(a.shape[0]):   (inside the jitted accumulate)


def python_line_events(program: Path, function: str, line: int) -> int:
    """How many times Python's tracer reports `line` of `function` when the program runs as plain Python."""
    tracer = (
        "import runpy, sys\n"
        "count = 0\n"
        "def trace(frame, event, arg):\n"
        "    global count\n"
        f"    if frame.f_code.co_name != {function!r}:\n"
        "        return None\n"
        f"    if event == 'line' and frame.f_lineno == {line}:\n"
        "        count += 1\n"
        "    return trace\n"
        "sys.settrace(trace)\n"
        f"runpy.run_path({str(program)!r}, run_name='__main__')\n"
        "sys.settrace(None)\n"
        "print('line events:', count)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", tracer],
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return int(re.findall(r"line events: (\d+)", out)[-1])


def test_a_loop_header_breakpoint_stops_as_often_as_python_reports_the_line_even_when_set_again(
    dap: DapClient,
) -> None:
    """A `for` line runs once per iteration and once at the loop's end (Python's line events); gdb's own
    address of the line is the iterator's creation (once per loop). Set again mid-loop (a new breakpoint,
    the old one deleted), it keeps stopping at every run of the line."""
    expected = python_line_events(LOOPS, "accumulate", LOOP_HEADER_LINE)
    assert dap.start(LOOPS, breakpoints={LOOP_HEADER_LINE: {}})["success"]
    first_id = dap.last_breakpoints[0]["id"]
    stops = 0
    current_id = first_id
    while True:
        message = dap.wait_for(
            lambda m: (
                m.get("type") == "event" and m.get("event") in ("stopped", "exited") and not m.get("_seen")
            ),
            120.0,
            "stopped or exited",
        )
        if message["event"] == "exited":
            break
        body = message["body"]
        stops += 1
        assert body["reason"] == "breakpoint" and body.get("hitBreakpointIds") == [current_id], body
        assert dap.top_frames(body["threadId"])[0]["line"] == LOOP_HEADER_LINE
        if stops == 3:
            response = dap.ok(
                "setBreakpoints",
                {"source": {"path": str(LOOPS)}, "breakpoints": [{"line": LOOP_HEADER_LINE}]},
            )
            current_id = response["breakpoints"][0]["id"]
            assert current_id != first_id
        dap.ok("continue", {"threadId": body["threadId"]})
    assert stops == expected, (stops, expected)
