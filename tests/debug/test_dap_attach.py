"""attach: by process id (debugpy injected, gdb attached), and detach leaving the program running."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from dapclient import DapClient

SERVICE = Path(__file__).resolve().parent / "programs" / "service.py"


@pytest.fixture
def service() -> Iterator[subprocess.Popen[str]]:
    env = {**os.environ, "NUMBA_DEBUGINFO": "1", "NUMBA_OPT": "0"}
    proc = subprocess.Popen([sys.executable, str(SERVICE)], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("ready")
    yield proc
    proc.kill()
    proc.wait(30)


def test_attach_by_process_id_then_detach(dap: DapClient, service: subprocess.Popen[str]) -> None:
    dap.attach(service.pid)
    breakpoints = dap.ok("setBreakpoints", {"source": {"path": str(SERVICE)}, "breakpoints": [{"line": 12}]})[
        "breakpoints"
    ]
    dap.ok("configurationDone")
    stop = dap.stopped()
    assert stop["hitBreakpointIds"] == [breakpoints[0]["id"]]
    frames = dap.top_frames(stop["threadId"])
    assert frames[0]["name"] == "tick(int64)" and frames[0]["line"] == 12
    assert frames[1]["name"] == "main"
    # Compiled before the attach: the call came through Dispatcher_call, not compile_and_invoke, and its
    # argument is still recovered from the dispatcher's folded `args` tuple.
    assert dap.scope_variables(frames[0]["id"])["Arguments"]["n"]["value"] == "5"
    dap.ok("setBreakpoints", {"source": {"path": str(SERVICE)}, "breakpoints": []})
    dap.ok("disconnect", {"terminateDebuggee": False})
    dap.event("terminated")
    # Detached: the program runs on.
    try:
        code = service.wait(3)
    except subprocess.TimeoutExpired:
        code = None
    assert code is None, f"the detached program ended with {code}"


def test_attach_to_debugpy_by_host_and_port(dap: DapClient, tmp_path: Path) -> None:
    from pyserver.debug.session import free_port

    program = tmp_path / "listening.py"
    program.write_text("def f(x):\n    y = x + 1\n    return y\n\n\nprint('result', f(41))\n")
    port = free_port()
    target = subprocess.Popen(
        [sys.executable, "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--wait-for-client", str(program)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        dap.ok("initialize", {"adapterID": "numba", "linesStartAt1": True, "pathFormat": "path"})
        seq = dap.stream.request("attach", {"host": "127.0.0.1", "port": port})
        dap.event("initialized", timeout=120)
        response = dap.wait_for(
            lambda m: m.get("request_seq") == seq and m.get("type") == "response", 120, "attach"
        )
        assert response["success"], response.get("message")
        dap.ok("setBreakpoints", {"source": {"path": str(program)}, "breakpoints": [{"line": 3}]})
        dap.ok("configurationDone")
        stop = dap.stopped()
        frames = dap.top_frames(stop["threadId"])
        assert (frames[0]["name"], frames[0]["line"]) == ("f", 3)
        assert dap.scope_variables(frames[0]["id"])["Locals"]["y"]["value"] == "42"
        dap.ok("disconnect", {"terminateDebuggee": False})
        # Not ours to end: the program finishes on its own.
        out, _ = target.communicate(timeout=60)
        assert "result 42" in out and target.returncode == 0
    finally:
        target.kill()
        target.wait(30)
