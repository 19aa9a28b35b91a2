"""The typed MI command layer (pyserver/debug/gdb/mi/) against a real gdb and a real Numba program, and a
check that no MI command string is written anywhere else in the debug package."""

from __future__ import annotations

import ast
import re
import sys
import threading
from pathlib import Path

import pytest

from pyserver.debug.gdb.backend import GdbBackend, MIRecord
from pyserver.debug.gdb.launcher import InferiorPty, configure_gdb, debuggee_argv
from pyserver.debug.gdb.mi import breakpoint as mi_breakpoint
from pyserver.debug.gdb.mi import console as mi_console
from pyserver.debug.gdb.mi import data as mi_data
from pyserver.debug.gdb.mi import exec as mi_exec
from pyserver.debug.gdb.mi import stack as mi_stack
from pyserver.debug.gdb.mi import target as mi_target
from pyserver.debug.gdb.mi import thread as mi_thread
from pyserver.debug.gdb.mi.base import c_string
from pyserver.debug.gdb.mi.exec import Resume
from pyserver.debug.gdb.mi_protocol import GdbCommandError

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"
DEBUG_PACKAGE = Path(__file__).resolve().parents[3] / "pyserver" / "debug"
MI_LAYER = DEBUG_PACKAGE / "gdb" / "mi"
STOP_TIMEOUT_S = 120.0
# kernels.py: `walk` sums a[i] * 2.0 over a loop; line 16 is its loop body's second line.
WALK_BODY = 16


class Stops:
    """The *stopped records of one gdb, one at a time."""

    def __init__(self, gdb: GdbBackend) -> None:
        self._stops: list[dict] = []
        self._arrived = threading.Condition()
        gdb.add_listener(self._on_record)

    def _on_record(self, record: MIRecord) -> None:
        if record.message in ("stopped", "thread-group-exited"):
            with self._arrived:
                self._stops.append(record.payload if record.message == "stopped" else {"reason": "exited"})
                self._arrived.notify_all()

    def next(self) -> dict:
        with self._arrived:
            if not self._arrived.wait_for(lambda: bool(self._stops), STOP_TIMEOUT_S):
                raise AssertionError("gdb reported no stop")
            return self._stops.pop(0)


def test_resume_commands_are_spelled_as_gdb_wants() -> None:
    assert Resume("continue").command() == "-exec-continue"
    assert Resume("continue", all_threads=True).command() == "-exec-continue --all"
    assert Resume("next", "3").command() == "-exec-next --thread 3"
    assert Resume("finish", "2", 1).command() == "-exec-finish --thread 2 --frame 1"
    assert Resume("next", "1", reverse=True).command() == "-exec-next --thread 1 --reverse"
    assert c_string('a "b"\\c\nd') == '"a \\"b\\"\\\\c\\nd"'


def test_the_layer_drives_a_jitted_program() -> None:
    program = PROGRAMS / "kernels.py"
    gdb = GdbBackend("gdb")
    stops = Stops(gdb)
    pty = InferiorPty(lambda _text: None)
    try:
        configure_gdb(gdb)  # gdb_set and console commands
        assert mi_console.console_output(gdb, "show pagination").strip().endswith("off.")

        line_bp = mi_breakpoint.break_insert(gdb, f"{program}:{WALK_BODY}", allow_pending=True)
        assert line_bp.pending and line_bp.line is None and not line_bp.temporary
        function_bp = mi_breakpoint.break_insert(
            gdb, "__main__::stats", allow_pending=True, qualified=True, temporary=True
        )
        assert function_bp.pending and function_bp.temporary and function_bp.number != line_bp.number
        with pytest.raises(GdbCommandError):
            mi_breakpoint.break_insert(gdb, "no_such_function_anywhere")  # without -f: an error

        mi_target.file_exec_and_symbols(gdb, sys.executable, timeout=60.0)
        mi_exec.exec_arguments(
            gdb, debuggee_argv(program=str(program), module=None, args=[], debugpy_port=None)
        )
        mi_console.interpreter_exec_console(gdb, "set environment NUMBA_DEBUGINFO=1")
        mi_console.interpreter_exec_console(gdb, "set environment NUMBA_OPT=0")
        mi_target.environment_cd(gdb, str(program.parent))
        mi_target.inferior_tty_set(gdb, pty.name)
        mi_exec.exec_run(gdb, timeout=60.0)

        stop = stops.next()
        assert stop["reason"] == "breakpoint-hit" and stop["bkptno"] == line_bp.number
        thread = str(stop["thread-id"])
        frames = mi_stack.stack_list_frames(gdb, thread)
        assert "walk" in frames[0]["func"] and frames[0]["line"] == str(WALK_BODY)
        assert frames[0]["level"] == "0" and frames[1]["func"].startswith("cpython::")
        assert len(mi_stack.stack_list_frames(gdb, thread, 0, 1)) == 2
        variables = {v["name"] for v in mi_stack.stack_list_variables(gdb, thread, 0)}
        assert {"a", "n", "total", "i", "x"} <= variables
        assert mi_data.data_evaluate_expression(gdb, "6*7", thread=thread, frame=0) == "42"
        with pytest.raises(GdbCommandError):
            mi_data.data_evaluate_expression(gdb, "no_such_variable_here", thread=thread, frame=0)
        sp = int(mi_data.data_evaluate_expression(gdb, "(long)$sp", thread=thread, frame=0))
        assert len(mi_data.data_read_memory_bytes(gdb, sp, 16)) == 16

        threads = mi_thread.thread_info(gdb)
        assert any(t["id"] == thread and re.search(r"LWP \d+", t["target-id"]) for t in threads)
        groups = mi_thread.list_thread_groups(gdb)
        assert int(groups[0]["pid"]) > 0

        # The next hit of the line is the next iteration; after it, ignore the line breakpoint for good.
        mi_exec.exec_next(gdb, thread)
        assert stops.next()["reason"] == "end-stepping-range"
        mi_exec.exec_continue(gdb)
        assert stops.next()["bkptno"] == line_bp.number
        mi_breakpoint.break_after(gdb, line_bp.number, 2147483647)
        mi_exec.exec_finish(gdb, thread, 0)
        finished = stops.next()
        assert finished["reason"] == "function-finished"
        mi_breakpoint.break_delete(gdb, line_bp.number)
        mi_exec.resume(gdb, Resume("continue", all_threads=True))
        stop = stops.next()  # the temporary breakpoint on stats (normalise ran without a breakpoint)
        assert stop["reason"] == "breakpoint-hit" and stop["bkptno"] == function_bp.number
        assert "stats" in stop["frame"]["func"]
        mi_exec.exec_continue(gdb)  # walk, called by stats, no longer stops: the program ends
        assert stops.next()["reason"] in ("exited-normally", "exited")
    finally:
        gdb.close()
        pty.close()


def test_interrupt_and_detach_on_a_running_program() -> None:
    """-exec-interrupt stops a running program; -target-detach leaves it running."""
    import subprocess

    spinner = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: time.sleep(0.01)"])
    gdb = GdbBackend("gdb")
    stops = Stops(gdb)
    try:
        configure_gdb(gdb)
        mi_target.target_attach(gdb, spinner.pid, timeout=120)
        assert stops.next().get("reason", "") in ("signal-received", "")
        mi_exec.exec_continue(gdb)
        mi_exec.exec_interrupt(gdb, all_threads=True)
        assert stops.next().get("reason") == "signal-received"
        mi_target.target_detach(gdb)
        assert spinner.poll() is None
    finally:
        gdb.close()
        spinner.kill()
        spinner.wait()


# --- no raw MI outside the layer ---------------------------------------------------------------------
# An MI command as a string: a dash, then a word-dash-word operation ("-exec-next", "-break-insert").
MI_COMMAND = re.compile(r"^\s*-[a-z]+(-[a-z]+)+(\s|$)")
# Strings that look like MI commands but are not sent: values_gdb.py runs inside gdb and defines the
# MI command the layer's numba_lens module sends.
NOT_SENT = {("values_gdb.py", "-numba-lens-frame")}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def raw_mi_strings(root: Path = DEBUG_PACKAGE) -> list[str]:
    """Every string literal (f-string parts too) in the debug package, outside the MI layer, that starts
    like an MI command; docstrings are prose and not sent."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(root.rglob("*.py")):
        if MI_LAYER in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                text = node.value
                if MI_COMMAND.match(text) and (path.name, text.strip()) not in NOT_SENT:
                    found.append((str(path.relative_to(root)), node.lineno, text))
    return [f"{name}:{line}: {text!r}" for name, line, text in sorted(found)]


def test_no_mi_command_is_written_outside_the_layer() -> None:
    found = raw_mi_strings()
    assert not found, "MI commands belong in pyserver/debug/gdb/mi/ (a typed function each):\n" + "\n".join(
        found
    )


def test_the_check_finds_a_raw_mi_command(tmp_path: Path) -> None:
    (tmp_path / "sneaky.py").write_text(
        '"""-exec-next in a docstring is prose."""\n'
        'def go(gdb, t):\n    gdb.execute(f"-exec-next --thread {t}")\n    gdb.execute("-thread-info")\n'
        '    return ["-m", "--listen"]\n'
    )
    found = raw_mi_strings(tmp_path)
    assert len(found) == 2 and "-exec-next" in found[0] and "-thread-info" in found[1]
