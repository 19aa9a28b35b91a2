"""What the session's components share: timeouts, the code run inside the debuggee, breakpoint records,
and process helpers."""

from __future__ import annotations

import ast
import os
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyserver import pysource
from pyserver.debug.debuggee.inside import BOOTSTRAP
from pyserver.debug.jit import frames as jitframes

DEBUGPY_CONNECT_TIMEOUT_S = 90.0
DEBUGPY_REPLY_TIMEOUT_S = 10.0
GDB_TIMEOUT_S = 30.0
SYNC_TIMEOUT_S = 10.0
# The debuggee's boot script (debuggee/inside/boot.py) gives debugpy's own threads this native name;
# the thread list leaves them out.
DEBUGGER_THREAD_NAME = "debugpy"
# Python frames of these files are the debugger's own machinery, hidden unless showInternalFrames.
INTERNAL_PY_FILES = ("<frozen runpy>", str(BOOTSTRAP), "/debugpy/", "/pydevd", "_pydev")

EXCEPTION_FILTERS = [
    {"filter": "raised", "label": "Raised Exceptions", "default": False},
    {"filter": "uncaught", "label": "Uncaught Exceptions", "default": True},
    {"filter": "userUnhandled", "label": "User Uncaught Exceptions", "default": False},
]


@dataclass
class GdbBreakpoint:
    dap_id: int
    number: str
    path: str
    line: int
    log_message: str | None = None
    function: str | None = None  # a function breakpoint's name as the editor gave it
    verified: bool = False
    temporary: bool = False
    hit_mode: str = ""  # "" | "==" | ">=" | ">" | "%"
    hit_n: int = 0
    hits: int = 0
    parfor_only: bool = False  # set on "<string>" lines: only a parfor gufunc's stop is this breakpoint
    condition: str | None = None
    step_in: bool = False  # a temporary breakpoint of a Step Into from Python: its stop is a step


@dataclass(frozen=True)
class LineBreakpoint:
    """One of the editor's line breakpoints that gdb sets (its index in the request)."""

    index: int
    args: dict[str, Any]
    gdb_file: str | None  # the file name gdb knows the line by, when not the source's path


# A source file of Numba itself (its overload bodies, e.g. numba/misc/gdb_hook.py), never the user's.
NUMBA_OWN_SOURCE = re.compile(r"[/\\]numba[/\\](misc|core|np|cpython|typed|experimental)[/\\]")


@dataclass
class SourceBreakpoints:
    gdb: list[GdbBreakpoint] = field(default_factory=list)
    debugpy_ids: dict[int, int] = field(default_factory=dict)  # debugpy id -> our id
    # The editor's breakpoints of this source that debugpy holds (None: never set).
    python_requested: list[dict[str, Any]] | None = None


PARFOR_GUFUNC = "__numba_parfor_gufunc"


def prange_body_lines(path: str, functions: list[Any]) -> dict[int, str]:
    """1-based lines inside `for ... in prange(...)` bodies of parallel=True functions -> the function."""
    parallel = [f for f in functions if f.options.get("parallel")]
    if not parallel:
        return {}
    try:
        tree = pysource.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return {}
    lines: dict[int, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.For) or not isinstance(node.iter, ast.Call):
            continue
        callee = node.iter.func
        name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
        if name != "prange":
            continue
        owner = next((f for f in parallel if f.def_line <= node.lineno <= f.end_line), None)
        if owner is None or not node.body:
            continue
        for line in range(node.body[0].lineno, (node.end_lineno or node.lineno) + 1):
            lines[line] = owner.name
    return lines


def ptrace_hint(gdb_message: str) -> str | None:
    """What to do when gdb may not trace (ptrace refused), or None for other errors."""
    text = gdb_message.lower()
    if "ptrace" in text or "operation not permitted" in text or "could not trace" in text:
        return (
            "gdb may not trace processes here (ptrace: Operation not permitted). Allow it: "
            "echo 0 | sudo tee /proc/sys/kernel/yama/ptrace_scope, or in a container add "
            '--cap-add=SYS_PTRACE; "mode": "python" debugs without gdb.'
        )
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def process_is_dead(pid: int) -> bool:
    """Gone, or a zombie nobody has reaped yet (from /proc: psutil is a test-only dependency)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode(errors="replace")
        return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def all_descendants(pid: int) -> set[int]:
    """Every live descendant of `pid` (from /proc; no psutil at run time)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def reap_children() -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def in_jitted_code(frame: Any) -> bool:
    """Whether a gdb frame is one of jitted code (not a C helper, the interpreter or Numba's wrapper)."""
    return jitframes.classify_frame(frame) == "jit"
