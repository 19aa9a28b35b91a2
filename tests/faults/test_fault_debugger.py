"""Fault injection in the debugger, through a real DAP client, gdb, debugpy and Numba: the debuggee
killed while stopped in jitted code, gdb killed, debugpy's port taken by another program, the client
gone without a disconnect. Each ends with a clear message (an event or an error response), an adapter
that still answers until it is told to go, and no process left behind (a census before and after)."""

from __future__ import annotations

import os
import signal
import socket
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from dapclient import DapClient
from fault_helpers import Census, wait_until

PROGRAMS = Path(__file__).resolve().parents[1] / "debug" / "programs"
MIXED = PROGRAMS / "mixed.py"
JIT_LINE = 12  # `total += x * 2.0` inside walk()
pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def dap(tmp_path: Path, census: Census) -> Iterator[DapClient]:
    client = DapClient(str(tmp_path / "dap.log"))
    yield client
    client.close()


def adapter_descendants(dap: DapClient) -> list[psutil.Process]:
    try:
        return psutil.Process(dap.proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def find(dap: DapClient, predicate: str) -> psutil.Process:
    """The one descendant of the adapter whose command line contains `predicate`."""

    def match() -> list[psutil.Process]:
        found = []
        for process in adapter_descendants(dap):
            try:
                if predicate in " ".join(process.cmdline()):
                    found.append(process)
            except psutil.NoSuchProcess:
                pass
        return found

    found = wait_until(match, 60, f"a process running {predicate}")
    assert isinstance(found, list)
    return found[0]


def stopped_in_jitted_code(dap: DapClient) -> int:
    assert dap.start(MIXED, breakpoints={JIT_LINE: {}})["success"]
    stop = dap.stopped()
    frames = dap.top_frames(stop["threadId"])
    assert frames[0]["name"].startswith("walk(")
    return int(stop["threadId"])


def ends_cleanly(dap: DapClient) -> None:
    """terminated has been sent; the adapter still answers and leaves when disconnected."""
    dap.event("terminated")
    response = dap.request("threads", timeout=60)
    assert "success" in response  # an answer (an empty list or a clear error), not silence
    leave(dap)


def leave(dap: DapClient) -> None:
    """As VS Code ends a session: disconnect, then close the adapter's stdin; the adapter exits."""
    dap.request("disconnect", {"terminateDebuggee": True}, timeout=60)
    assert dap.proc.stdin is not None
    dap.proc.stdin.close()
    assert dap.proc.wait(60) == 0


def test_debuggee_killed_while_stopped(dap: DapClient) -> None:
    stopped_in_jitted_code(dap)
    debuggee = find(dap, str(MIXED))
    debuggee.send_signal(signal.SIGKILL)
    exited = dap.event("exited")
    assert exited["exitCode"] != 0
    # The Debug Console names the signal that ended the program.
    assert "SIGKILL" in dap.output_text(), dap.output_text()[-2000:]
    ends_cleanly(dap)


def test_gdb_killed_while_stopped(dap: DapClient) -> None:
    stopped_in_jitted_code(dap)
    gdb = find(dap, "--interpreter=mi")
    gdb.send_signal(signal.SIGKILL)
    exited = dap.event("exited")
    assert exited["exitCode"] != 0  # gdb died: never a program that "exited 0"
    output = dap.output_text().lower()
    assert "gdb exited unexpectedly" in output, f"no word about gdb in the output: {output[-2000:]!r}"
    ends_cleanly(dap)


def test_client_gone_without_disconnect(dap: DapClient, census: Census) -> None:
    stopped_in_jitted_code(dap)
    tree = adapter_descendants(dap)
    assert len(tree) >= 2  # gdb and the debuggee at least
    # The editor crashed: its end of the pipes closes, and no disconnect ever comes.
    assert dap.proc.stdin is not None
    dap.proc.stdin.close()
    assert dap.proc.wait(60) is not None
    _gone, alive = psutil.wait_procs(tree, timeout=60)
    assert alive == [], f"left behind when the client went away: {alive}"


TAKE_PORT_HOOK = textwrap.dedent(
    """
    # Test-only fault injection: the adapter's free port is one another program already listens on.
    import importlib.abc, importlib.util, os, sys

    PORT = int(os.environ["NUMBA_LENS_TEST_TAKEN_PORT"])


    class _Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != "pyserver.debug.session.launch":  # where the launch picks its port
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                module.free_port = lambda: PORT

            spec.loader.exec_module = exec_module
            return spec


    sys.meta_path.insert(0, _Finder())
    """
)


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port some other program listens on (and never speaks DAP)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as other:
        other.bind(("127.0.0.1", 0))
        other.listen(8)
        yield int(other.getsockname()[1])


def test_debugpy_port_taken(
    tmp_path: Path, taken_port: int, census: Census, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook_dir = tmp_path / "hook"
    hook_dir.mkdir()
    (hook_dir / "sitecustomize.py").write_text(TAKE_PORT_HOOK)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(hook_dir), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("NUMBA_LENS_TEST_TAKEN_PORT", str(taken_port))
    dap = DapClient(str(tmp_path / "dap.log"))
    try:
        monkeypatch.delenv("NUMBA_LENS_TEST_TAKEN_PORT")
        dap.ok("initialize", {"adapterID": "numba", "linesStartAt1": True, "pathFormat": "path"})
        started = time.monotonic()
        launch = dap.request("launch", {"program": str(MIXED), "cwd": str(MIXED.parent)}, timeout=400)
        waited = time.monotonic() - started
        # The program's debugpy cannot listen: the launch fails with a message that says why.
        assert launch["success"] is False, launch
        message = launch.get("message", "") + dap.output_text()
        print(f"\n[faults] port taken: launch failed after {waited:.0f} s: {launch.get('message')}")
        assert "debugpy" in message and ("in use" in message.lower() or str(taken_port) in message), message
        response = dap.request("threads", timeout=60)
        assert "success" in response
        leave(dap)
    finally:
        dap.close()


TYPED_IN_PYTHON = PROGRAMS / "typed_in_python.py"
LOOPS = PROGRAMS / "loops.py"
LOOPS_JIT_LINE = 11  # total += a[i]


def test_typed_containers_in_a_python_frame_never_break_the_program(dap: DapClient) -> None:
    """pydevd's own view of numba.typed.List/Dict calls jitted code (repr, iteration), compiled on first
    use while the thread is stopped; past its patience pydevd resumes the other threads and the
    adapter's request times out. The adapter's plugin reads the items from memory instead."""
    line = next(
        n for n, text in enumerate(TYPED_IN_PYTHON.read_text().splitlines(), 1) if text.endswith("# BREAK")
    )
    assert dap.start(TYPED_IN_PYTHON, breakpoints={line: {}})["success"]
    stop = dap.stopped()
    frame = dap.top_frames(stop["threadId"])[0]
    assert frame["name"] == "main"
    local = dap.scope_variables(frame["id"])["Locals"]
    assert local["words"]["value"] == "['ab', 'cde', 'ab', 'f']"
    assert local["weights"]["value"] == "[1.5, 2.5, -0.25]"
    assert local["counts"]["value"] == "{'ab': 2, 'cde': 1, 'f': 1}"

    def items(name: str) -> list[tuple[str, str]]:
        reference = local[name]["variablesReference"]
        children = dap.ok("variables", {"variablesReference": reference})["variables"]
        return [(child["name"], child["value"]) for child in children]

    for _ in range(2):  # twice: a second look must not differ (nothing ran in between)
        assert items("words") == [
            ("[0]", "'ab'"),
            ("[1]", "'cde'"),
            ("[2]", "'ab'"),
            ("[3]", "'f'"),
            ("len()", "4"),
        ]
        assert items("weights") == [("[0]", "1.5"), ("[1]", "2.5"), ("[2]", "-0.25"), ("len()", "3")]
        assert items("counts") == [("'ab'", "2"), ("'cde'", "1"), ("'f'", "1"), ("len()", "3")]
    # The program is still where it stopped, and goes on to the end when asked.
    assert dap.top_frames(stop["threadId"])[0]["line"] == line
    dap.ok("continue", {"threadId": stop["threadId"]})
    assert dap.event("exited")["exitCode"] == 0
    assert "total 6" in dap.output_text() + dap.terminal_text()
    ends_cleanly(dap)


def test_breakpoints_cleared_while_running_still_ends_the_session(dap: DapClient) -> None:
    """Steps, a Continue, then setBreakpoints [] while the program runs on to the same breakpoint: a hit
    of the deleted breakpoint read after the delete is no stop, and the session ends with the program."""
    assert dap.start(LOOPS, breakpoints={LOOPS_JIT_LINE: {}})["success"]
    stop = dap.stopped()
    for _ in range(3):
        dap.ok("next", {"threadId": stop["threadId"]})
        stop = dap.stopped()
    dap.ok("continue", {"threadId": stop["threadId"]})
    dap.ok("setBreakpoints", {"source": {"path": str(LOOPS)}, "breakpoints": []})
    end = dap.wait_for(
        lambda m: m.get("type") == "event" and m.get("event") in ("stopped", "exited"), 120, "exited"
    )
    if end["event"] == "stopped":
        # The hit was reported before the delete arrived: a real stop, which the user continues.
        dap.ok("continue", {"threadId": end["body"]["threadId"]})
        end = dap.wait_for(lambda m: m.get("type") == "event" and m.get("event") == "exited", 120, "exited")
    assert end["body"]["exitCode"] == 0
    ends_cleanly(dap)
