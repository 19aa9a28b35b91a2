"""stopAtJitFunction in modes python and cudasim: stop at the function's first statement.

The function runs as Python there, so the stop is a one-shot debugpy line breakpoint on its first body
statement (found without running anything: discovery plus the AST), sent along with the editor's own
breakpoints of that file. A debugpy function breakpoint would stop on the decorator line, and in the CUDA
simulator's kernel threads it does not fire. Its condition is evaluated in the program, so only the first
thread that reaches the line stops (the simulator runs a kernel's threads as Python threads).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyserver import pysource

# The condition of the stop: true for the first thread that reaches the line, false for every other,
# decided inside the program (dict.setdefault is atomic), so no second thread stops there before the adapter
# has removed the breakpoint.
FIRST_THREAD_ONLY = "(lambda claim: __import__('sys').__dict__.setdefault('_numba_lens_first_statement_stop', claim) is claim)(object())"


@dataclass
class FirstStatementStop:
    """The one-shot stop on the first body statement of the function (a kernel in mode cudasim)."""

    name: str
    path: str
    line: int
    dap_id: int  # our id for it: never shown to the editor
    active: bool = True

    def pending_in(self, path: str, bps: list[dict[str, Any]]) -> bool:
        """Whether to send the stop with this source's breakpoints: it is in this file, and the editor has
        no breakpoint of its own on that line (which then stops there: never add a second stop later)."""
        if not self.active or not same_file(path, self.path):
            return False
        if any(int(bp.get("line", 0)) == self.line for bp in bps):
            self.active = False
            return False
        return True

    def as_breakpoint(self) -> dict[str, Any]:
        """The debugpy source breakpoint that makes the stop."""
        return {"line": self.line, "condition": FIRST_THREAD_ONLY}


def candidate_files(
    target: str, program: str | None, cwd: str, env: dict[str, str | None], argv_args: list[str]
) -> tuple[str, list[Path]]:
    """The function's name and the files that may define `target` ("add_one", "__main__::add_one" or
    "pkg::kernels::add_one", as the lens writes it). A plain name is in the program, or, for a module
    launch (`pytest file.py`), in a .py file among its arguments."""
    parts = target.split("::")
    module, name = parts[:-1], parts[-1]
    candidates: list[Path] = []
    if not module or module == ["__main__"]:
        if program:
            candidates.append(Path(program))
        else:
            candidates += [Path(cwd, arg) for arg in argv_args if arg.endswith(".py")]
    else:
        roots = [Path(program).parent] if program else []
        roots.append(Path(cwd))
        roots += [Path(p) for p in str(env.get("PYTHONPATH") or "").split(os.pathsep) if p]
        for root in roots:
            base = root.joinpath(*module)
            candidates += [base.with_suffix(".py"), base / "__init__.py"]
    return name, candidates


def locate_first_statement(name: str, candidates: list[Path]) -> tuple[Path, int] | None:
    """The file and first body line of the jitted function `name`, found without running anything."""
    from pyserver.analysis.api import find_jitted_functions

    for path in candidates:
        try:
            source = path.read_text(encoding="utf-8")
            functions = find_jitted_functions(source, str(path))
            tree = pysource.parse(source)
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        function = next((f for f in functions if f.name == name), None)
        line = first_body_line(tree, function.def_line) if function is not None else None
        if line is not None:
            return path.resolve(), line
    return None


def first_body_line(tree: ast.Module, def_line: int) -> int | None:
    """The line of the first statement in the body of the function defined at `def_line` (a docstring
    runs no code, so the statement after it)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno == def_line:
            body = node.body
            if (
                len(body) > 1
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                body = body[1:]
            return body[0].lineno if body else None
    return None


def same_file(first: str, second: str) -> bool:
    return os.path.normcase(os.path.realpath(first)) == os.path.normcase(os.path.realpath(second))
