"""Debugger depth (issue 7): in-code breakpoints, parallel threads, reverse steps, through the DAP client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from dapclient import DapClient

PROGRAMS = Path(__file__).resolve().parent / "programs"
IN_CODE = PROGRAMS / "in_code_breaks.py"


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    client = DapClient(str(tmp_path / "dap.log"))
    yield client
    client.close()


def gdb_count(dap: DapClient) -> int:
    children = psutil.Process(dap.proc.pid).children(recursive=True)
    return sum(1 for p in children if p.name() == "gdb" and p.status() != psutil.STATUS_ZOMBIE)


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
