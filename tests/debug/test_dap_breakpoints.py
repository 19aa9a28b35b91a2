"""Conditional, hit-count and log breakpoints in jitted code (gdb) and in Python (debugpy)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from dapclient import DapClient

LOOPS = Path(__file__).resolve().parent / "programs" / "loops.py"
JIT_LINE = 11  # total += a[i]    (inside the jitted accumulate)
PY_LINE = 19  # results.append(accumulate(a) + k)


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    client = DapClient(str(tmp_path / "dap.log"))
    yield client
    client.close()


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
