"""Pause, ending the session from every state, the adapter's own death, and python mode."""

from __future__ import annotations

import ast
import os
import signal
from pathlib import Path

import psutil
import pytest
from dapclient import DapClient, program_name

from pyserver.debug.jit.entry_stop import first_body_line

PROGRAMS = Path(__file__).resolve().parent / "programs"
MIXED = PROGRAMS / "mixed.py"
SPIN = PROGRAMS / "spin.py"


def descendants(pid: int) -> list[psutil.Process]:
    try:
        return [p for p in psutil.Process(pid).children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE]
    except psutil.NoSuchProcess:
        return []


def test_pause_in_a_long_jitted_loop_then_terminate(dap: DapClient) -> None:
    assert dap.start(SPIN)["success"]
    dap.wait_for(
        lambda m: m.get("event") == "output" and "spinning" in m["body"].get("output", ""),
        120,
        "program output",
    )
    threads = dap.ok("threads")["threads"]
    dap.ok("pause", {"threadId": threads[0]["id"]})
    stop = dap.stopped()
    assert stop["reason"] == "pause"
    # The main thread is in the jitted loop.
    main = next(t["id"] for t in dap.ok("threads")["threads"] if t["name"].startswith("MainThread"))
    name, line = dap.top_frames(main)[0]["name"], dap.top_frames(main)[0]["line"]
    assert name == "spin(int64)" and 8 <= line <= 12
    assert [f["name"] for f in dap.top_frames(main)][1:3] == ["main", "<module>"]
    dap.ok("terminate")
    dap.event("terminated")
    dap.event("exited")


def test_pause_in_python_is_a_debugpy_stop(dap: DapClient, tmp_path: Path) -> None:
    program = tmp_path / "sleepy.py"
    program.write_text("import time\nprint('ready', flush=True)\nfor i in range(600):\n    time.sleep(0.1)\n")
    assert dap.start(program)["success"]
    dap.wait_for(
        lambda m: m.get("event") == "output" and "ready" in m["body"].get("output", ""), 120, "ready"
    )
    dap.ok("pause", {"threadId": 0})
    stop = dap.stopped()
    assert stop["reason"] == "pause"
    frames = dap.top_frames(stop["threadId"])
    assert frames[0]["name"] == "<module>" and frames[0]["line"] in (3, 4)
    # A Python frame: debugpy answers evaluate.
    assert dap.ok("evaluate", {"expression": "i * 0", "frameId": frames[0]["id"]})["result"] == "0"


def test_disconnect_while_stopped_in_jitted_code_ends_everything(dap: DapClient) -> None:
    assert dap.start(MIXED, breakpoints={12: {}})["success"]
    dap.stopped()
    tree = descendants(dap.proc.pid)
    assert {"gdb", "python"} <= {
        program_name(p) for p in tree
    }  # gdb and the debuggee (debugpy runs inside it)
    dap.ok("disconnect", {"terminateDebuggee": True})
    dap.event("terminated")
    _gone, alive = psutil.wait_procs(tree, timeout=30)
    assert not alive, [p.cmdline() for p in alive]
    dap.proc.stdin.close()  # type: ignore[union-attr]
    assert dap.proc.wait(30) == 0


def test_terminate_while_stopped_in_python(dap: DapClient) -> None:
    assert dap.start(MIXED, breakpoints={19: {}})["success"]
    dap.stopped()
    tree = descendants(dap.proc.pid)
    dap.ok("terminate")
    dap.event("exited")
    dap.event("terminated")
    _gone, alive = psutil.wait_procs(tree, timeout=30)
    assert not alive


def test_editor_going_away_while_stopped(dap: DapClient) -> None:
    assert dap.start(MIXED, breakpoints={12: {}})["success"]
    dap.stopped()
    tree = descendants(dap.proc.pid)
    dap.proc.stdin.close()  # type: ignore[union-attr]
    assert dap.proc.wait(60) == 0
    _gone, alive = psutil.wait_procs(tree, timeout=30)
    assert not alive


def test_adapter_killed_while_stopped_leaves_nothing(dap: DapClient) -> None:
    assert dap.start(MIXED, breakpoints={12: {}})["success"]
    dap.stopped()
    tree = descendants(dap.proc.pid)
    assert {"gdb", "python"} <= {program_name(p) for p in tree}
    os.kill(dap.proc.pid, signal.SIGKILL)
    dap.proc.wait(30)
    # gdb dies with the adapter (parent-death signal), the debuggee with gdb; anything else would be
    # re-parented to this (subreaper) process and fail the no-orphans check.
    _gone, alive = psutil.wait_procs(tree, timeout=30)
    assert not alive, [p.cmdline() for p in alive]


def test_program_exits_on_its_own(dap: DapClient) -> None:
    assert dap.start(MIXED)["success"]
    assert dap.event("exited")["exitCode"] == 0
    dap.event("terminated")
    assert "walk: 20.0" in dap.output_text()


def test_exit_code_is_reported(dap: DapClient, tmp_path: Path) -> None:
    program = tmp_path / "fails.py"
    program.write_text("import sys\nsys.exit(3)\n")
    assert dap.start(program)["success"]
    assert dap.event("exited")["exitCode"] == 3


def test_python_mode_debugs_jitted_functions_as_python(dap: DapClient) -> None:
    assert dap.start(MIXED, mode="python", breakpoints={12: {"hitCondition": "3"}})["success"]
    stop = dap.stopped()
    frames = dap.top_frames(stop["threadId"])
    assert (frames[0]["name"], frames[0]["line"]) == ("walk", 12)
    variables = dap.scope_variables(frames[0]["id"])["Locals"]
    assert variables["n"]["value"] == "4" and variables["i"]["value"] == "2"
    assert not [p for p in descendants(dap.proc.pid) if program_name(p) == "gdb"]
    dap.ok("continue", {"threadId": stop["threadId"]})
    assert dap.event("exited")["exitCode"] == 0


def test_python_mode_stops_at_the_jitted_functions_first_statement(dap: DapClient) -> None:
    """The "Debug as Python" lens: stopAtJitFunction stops at the function's first statement (not on its
    decorator line), once, as "Debug JIT function" does in mixed mode."""
    program, function = MIXED, "walk"
    assert dap.start(program, mode="python", stopAtJitFunction=f"__main__::{function}")["success"]
    stop = dap.stopped()
    assert stop["reason"] == "function breakpoint"
    frames = dap.top_frames(stop["threadId"])
    assert frames[0]["name"] == function and frames[0]["source"]["path"] == str(program)
    assert frames[0]["line"] == first_body_line(ast.parse(program.read_text()), 8) == 9  # total = 0.0
    dap.ok("continue", {"threadId": stop["threadId"]})
    assert dap.event("exited")["exitCode"] == 0
    assert len(dap.events("stopped")) == 1


def test_python_mode_stop_at_jit_function_keeps_the_users_breakpoints(dap: DapClient) -> None:
    """The one-shot stop is merged with the editor's breakpoints of the same file: both stop."""
    assert dap.start(MIXED, mode="python", stopAtJitFunction="walk", breakpoints={12: {}})["success"]
    assert dap.last_breakpoints[0]["verified"] is True
    first = dap.stopped()
    assert dap.top_frames(first["threadId"])[0]["line"] == 9
    dap.ok("continue", {"threadId": first["threadId"]})
    second = dap.stopped()
    assert second["reason"] == "breakpoint"
    assert dap.top_frames(second["threadId"])[0]["line"] == 12
    dap.ok("setBreakpoints", {"source": {"path": str(MIXED)}, "breakpoints": []})
    dap.ok("continue", {"threadId": second["threadId"]})
    assert dap.event("exited")["exitCode"] == 0


@pytest.mark.parametrize("mode", ["python", "cudasim"])
def test_function_breakpoints_without_gdb(dap: DapClient, mode: str) -> None:
    """VS Code sends setFunctionBreakpoints (often empty) at every start: modes without gdb answer it
    (no error toast), and a named Python function stops there through debugpy."""
    assert dap.start(MIXED, mode=mode, function_breakpoints=[])["success"]
    assert dap.last_function_breakpoints == []
    assert dap.event("exited")["exitCode"] == 0


def test_function_breakpoint_in_python_mode_stops_in_the_function(dap: DapClient) -> None:
    assert dap.start(MIXED, mode="python", function_breakpoints=[{"name": "walk"}])["success"]
    assert [bp["verified"] for bp in dap.last_function_breakpoints] == [True]
    stop = dap.stopped()
    assert stop["reason"] == "function breakpoint"
    assert stop.get("hitBreakpointIds", [dap.last_function_breakpoints[0]["id"]]) == [
        dap.last_function_breakpoints[0]["id"]
    ]
    assert dap.top_frames(stop["threadId"])[0]["name"] == "walk"
    dap.ok("continue", {"threadId": stop["threadId"]})
    assert dap.event("exited")["exitCode"] == 0


def test_stop_on_entry(dap: DapClient) -> None:
    assert dap.start(MIXED, stopOnEntry=True)["success"]
    stop = dap.stopped()
    assert stop["reason"] == "entry"
    frames = dap.top_frames(stop["threadId"])
    # The first statement of the program: its docstring (line 1), or the first import.
    assert frames[0]["source"]["path"] == str(MIXED) and frames[0]["line"] in (1, 3)
    dap.ok("continue", {"threadId": stop["threadId"]})
    assert dap.event("exited")["exitCode"] == 0


def test_cudasim_mode_stops_inside_a_kernel(dap: DapClient) -> None:
    program = PROGRAMS / "cuda_kernel.py"
    assert dap.start(program, mode="cudasim", breakpoints={11: {}})["success"]
    assert dap.last_breakpoints[0]["verified"] is True
    stop = dap.stopped()
    frames = dap.top_frames(stop["threadId"])
    assert (frames[0]["name"], frames[0]["line"]) == ("add_one", 11)
    dap.ok("setBreakpoints", {"source": {"path": str(program)}, "breakpoints": []})
    dap.ok("continue", {"threadId": stop["threadId"]})
    assert dap.event("exited")["exitCode"] == 0
    assert "cudasim: [1. 1. 1. 1.]" in dap.output_text()


CUDA_KERNEL = PROGRAMS / "cuda_kernel.py"
KERNEL_FIRST_LINE = 9  # i = cuda.grid(1)   (the first statement of add_one)
KERNEL_BODY_LINE = 11  # a[i] += 1


def thread_index(dap: DapClient, frame_id: int) -> tuple[int, int]:
    """(i, cuda.threadIdx.x) as the stopped kernel thread sees them."""

    def value(expression: str) -> int:
        return int(
            dap.ok("evaluate", {"expression": expression, "frameId": frame_id, "context": "watch"})["result"]
        )

    return value("i"), value("cuda.threadIdx.x")


def test_cudasim_stop_at_jit_function_stops_at_the_kernels_first_line(dap: DapClient) -> None:
    """The "Debug in CUDA simulator" lens: stopAtJitFunction stops at the kernel's first line, once."""
    assert dap.start(CUDA_KERNEL, mode="cudasim", stopAtJitFunction="add_one", breakpoints={})["success"]
    stop = dap.stopped()
    assert stop["reason"] == "function breakpoint" and "hitBreakpointIds" not in stop, stop
    thread = stop["threadId"]
    frames = dap.top_frames(thread)
    assert (frames[0]["name"], frames[0]["line"]) == ("add_one", KERNEL_FIRST_LINE), frames[0]
    assert frames[0]["source"]["path"] == str(CUDA_KERNEL)
    assert "a" in dap.scope_variables(frames[0]["id"])["Locals"]
    dap.ok("next", {"threadId": thread})
    assert dap.stopped()["reason"] == "step"
    frames = dap.top_frames(thread)
    assert frames[0]["line"] == KERNEL_FIRST_LINE + 1
    i, thread_x = thread_index(dap, frames[0]["id"])
    assert i == thread_x and 0 <= i < 4
    # One-shot: the other three kernel threads run through the line without stopping.
    dap.ok("continue", {"threadId": thread})
    assert dap.event("exited")["exitCode"] == 0
    assert len(dap.events("stopped")) == 2
    assert "cudasim: [1. 1. 1. 1.]" in dap.output_text()


def test_cudasim_stop_at_jit_function_keeps_the_users_breakpoints_in_the_kernel(dap: DapClient) -> None:
    """The kernel stop and the editor's breakpoints of the same file go to debugpy together, neither
    replacing the other: the kernel stop fires once, and the editor's conditional breakpoint fires where
    its condition holds, in a later launch of the kernel.

    One thread per launch: with several simulator threads, debugpy suspends them all at the first stop,
    and a thread suspended on the breakpoint's line that way does not count as a hit (pydevd skips the
    breakpoint check of a thread marked suspended), so which stops come would depend on the threads' race.
    """
    program = PROGRAMS / "cuda_kernel_launches.py"
    user_breakpoint = {KERNEL_BODY_LINE: {"condition": "a[0] == 1"}}
    assert dap.start(
        program, mode="cudasim", stopAtJitFunction="__main__::add_one", breakpoints=user_breakpoint
    )["success"]
    # The editor sees its own breakpoint only, verified.
    assert [(b["line"], b["verified"]) for b in dap.last_breakpoints] == [(KERNEL_BODY_LINE, True)]
    user_bp = dap.last_breakpoints[0]["id"]
    stop = dap.stopped()
    assert stop["reason"] == "function breakpoint" and "hitBreakpointIds" not in stop, stop
    frames = dap.top_frames(stop["threadId"])
    assert (frames[0]["name"], frames[0]["line"]) == ("add_one", KERNEL_FIRST_LINE)
    assert value_in(dap, frames[0]["id"], "a[0]") == 0.0  # the first launch
    dap.ok("continue", {"threadId": stop["threadId"]})
    # Not the kernel stop again (second launch, line 9), not the first launch's line 11 (a[0] == 0): the
    # second launch's line 11.
    stop = dap.stopped()
    assert stop["reason"] == "breakpoint" and stop.get("hitBreakpointIds") == [user_bp], stop
    frames = dap.top_frames(stop["threadId"])
    assert (frames[0]["name"], frames[0]["line"]) == ("add_one", KERNEL_BODY_LINE)
    assert value_in(dap, frames[0]["id"], "a[0]") == 1.0
    dap.ok("continue", {"threadId": stop["threadId"]})
    assert dap.event("exited")["exitCode"] == 0
    assert len(dap.events("stopped")) == 2
    assert "cudasim: [3.]" in dap.output_text()


def value_in(dap: DapClient, frame_id: int, expression: str) -> float:
    return float(
        dap.ok("evaluate", {"expression": f"float({expression})", "frameId": frame_id, "context": "watch"})[
            "result"
        ]
    )


def test_cudasim_stop_at_jit_function_in_a_test_run_by_pytest(dap: DapClient) -> None:
    """The lens on a kernel whose entry is a test: `-m pytest file.py`, the kernel found in that file."""
    check = PROGRAMS / "cuda_kernel_check.py"
    launch = {"module": "pytest", "args": ["-q", "-p", "no:cacheprovider", "--noconftest", str(check)]}
    assert dap.start(check, mode="cudasim", stopAtJitFunction="double_it", **launch)["success"]
    stop = dap.stopped()
    assert stop["reason"] == "function breakpoint"
    frames = dap.top_frames(stop["threadId"])
    assert (frames[0]["name"], frames[0]["line"]) == ("double_it", 9) and frames[0]["source"]["path"] == str(
        check
    )
    dap.ok("continue", {"threadId": stop["threadId"]})
    assert dap.event("exited")["exitCode"] == 0
    assert "1 passed" in dap.output_text()


def test_the_kernel_stop_line_is_the_first_statement_after_a_docstring() -> None:
    source = 'from numba import cuda\n\n@cuda.jit\ndef k(a):\n    """Doc."""\n\n    a[0] = 1\n'
    assert first_body_line(ast.parse(source), 4) == 7
    assert first_body_line(ast.parse("def k(a):\n    a[0] = 1\n"), 1) == 2
    assert first_body_line(ast.parse("def k(a):\n    a[0] = 1\n"), 2) is None  # no function there


def test_cudasim_stop_at_an_unknown_kernel_says_so_and_runs(dap: DapClient) -> None:
    assert dap.start(CUDA_KERNEL, mode="cudasim", stopAtJitFunction="no_such_kernel")["success"]
    assert dap.event("exited")["exitCode"] == 0
    assert 'no kernel "no_such_kernel"' in dap.output_text()
    assert "cudasim: [1. 1. 1. 1.]" in dap.output_text()


@pytest.mark.parametrize("mode", ["mixed", "python"])
def test_integrated_terminal_console(dap: DapClient, tmp_path: Path, mode: str) -> None:
    program = tmp_path / "ask.py"
    program.write_text("name = input('name? ')\nprint('hello', name)\n")
    assert dap.start(program, console="integratedTerminal", mode=mode)["success"]
    dap.wait_for(lambda m: "name? " in dap.terminal_text(), 120, "the prompt in the terminal")
    # The program reads the terminal: type a line as a user would.
    holder = dap.terminal_processes[0]
    assert holder.poll() is None
    dap.type_in_terminal("numba\n")
    assert dap.event("exited")["exitCode"] == 0
    dap.wait_for(lambda m: "hello numba" in dap.terminal_text(), 60, "the answer in the terminal")
    assert "hello numba" not in dap.output_text()
    assert holder.wait(30) is not None


def test_python_breakpoint_while_jitted_code_holds_the_gil(dap: DapClient) -> None:
    """The program runs a long jitted loop (holding the GIL, so debugpy cannot answer): setBreakpoints
    still answers, with the breakpoint unverified, instead of hanging the session."""
    assert dap.start(SPIN)["success"]
    dap.wait_for(
        lambda m: m.get("event") == "output" and "spinning" in m["body"].get("output", ""), 120, "output"
    )
    response = dap.request(
        "setBreakpoints", {"source": {"path": str(SPIN)}, "breakpoints": [{"line": 17}]}, timeout=30
    )
    assert response["success"]
    (bp,) = response["body"]["breakpoints"]
    assert bp["verified"] is False and "GIL" in bp["message"]
    # The session keeps answering.
    assert dap.ok("threads")["threads"]
    dap.ok("terminate")
    dap.event("terminated")
