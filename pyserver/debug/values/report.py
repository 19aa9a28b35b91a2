"""The raw report of one jitted frame, as gdb/inside/values_gdb.py's `-numba-lens-frame` returns it (variables,
DWARF layouts, bytes, the dispatcher's arguments), and the source index the reader judges SSA versions
with (which lines surely ran before the current one)."""

from __future__ import annotations

import ast
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyserver.debug.values.numba_types import NumbaType, parse_numba_type

# ----------------------------------------------------------------------------------------------------
# The raw report of one frame (from values_gdb.py)
# ----------------------------------------------------------------------------------------------------


@dataclass
class RawVar:
    name: str
    base: str  # name without the SSA suffix
    version: int  # 0 for `total`, 3 for `total$3`
    line: int
    is_arg: bool
    numba_type: NumbaType
    layout: dict[str, Any]
    data: bytes
    known: list[bool]
    error: str = ""

    def all_known(self) -> bool:
        return bool(self.known) and all(self.known)

    def is_zero(self) -> bool:
        return self.all_known() and not any(self.data)

    def field(self, name: str) -> tuple[int, dict[str, Any]] | None:
        for item in self.layout.get("fields", []):
            if item.get("name") == name:
                return int(item["offset"]), item
        return None

    def bytes_known(self, offset: int, size: int) -> bool:
        return size > 0 and offset + size <= len(self.known) and all(self.known[offset : offset + size])


@dataclass
class FrameReport:
    thread_id: int
    frame_level: int
    pc: int
    line: int
    file: str
    function: str
    variables: list[RawVar]
    entry_args: list[dict[str, Any]] | None
    entry_note: str
    # Frame 0 stands where its line starts (a breakpoint's or a step's stop), not inside it (a Step
    # Out's, a pause's): only then does the IR's state at the line's start (live_versions) hold.
    at_line_start: bool = False
    pid: int = 0  # the process's id (the record types the debuggee exports are per process)
    # Why a record argument's type is not known, by parameter name (for the "unavailable" note).
    record_notes: dict[str, str] = field(default_factory=dict)


def _parse_hex(text: str) -> tuple[bytes, list[bool]]:
    data = bytearray()
    known: list[bool] = []
    for index in range(0, len(text) - 1, 2):
        pair = text[index : index + 2]
        if pair == "??":
            data.append(0)
            known.append(False)
        else:
            data.append(int(pair, 16))
            known.append(True)
    return bytes(data), known


_VERSIONED = re.compile(r"^(.*)\$(\d+)$")


def raw_var(entry: dict[str, Any]) -> RawVar:
    name = str(entry.get("name", ""))
    match = _VERSIONED.match(name)
    base, version = (match.group(1), int(match.group(2))) if match else (name, 0)
    layout = entry.get("layout") or {}
    data, known = _parse_hex(str(entry.get("bytes", "")))
    type_name = str(layout.get("type", ""))
    return RawVar(
        name=name,
        base=base,
        version=version,
        line=int(entry.get("line", 0) or 0),
        is_arg=entry.get("arg") == "1",
        numba_type=parse_numba_type(type_name) if type_name else NumbaType("unknown", ""),
        layout=layout,
        data=data,
        known=known,
        error=str(entry.get("error", "")),
    )


# ----------------------------------------------------------------------------------------------------
# Which statement surely ran before which line (Python source)
# ----------------------------------------------------------------------------------------------------


class SourceIndex:
    """For a source file: the statement lists (bodies) of its AST, to answer "did the statement on line
    A surely run before line B in the current pass": A's statement and an ancestor-or-self of B's
    statement sit in the same body, A's first."""

    def __init__(self, source: str) -> None:
        self.lines = source.splitlines()
        self.tree = ast.parse(source)
        # line -> innermost statement starting on it: (body id, index)
        self.start: dict[int, tuple[int, int]] = {}
        # statements as (first line, last line, body id, index)
        self.spans: list[tuple[int, int, int, int]] = []
        self._function_names: dict[str, set[str] | None] = {}
        self._walk(self.tree)

    def _walk(self, node: ast.AST) -> None:
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            body = getattr(node, name, None)
            if not isinstance(body, list):
                continue
            body_id = id(body)
            for index, stmt in enumerate(body):
                if isinstance(stmt, ast.stmt):
                    end = getattr(stmt, "end_lineno", stmt.lineno) or stmt.lineno
                    self.spans.append((stmt.lineno, end, body_id, index))
                    self.start[stmt.lineno] = (body_id, index)
                self._walk(stmt)

    def mentions(self, line: int, name: str) -> bool:
        """Whether the source line names the variable: a check that the file on disk is the one the
        program was compiled from (an edited file would misplace the SSA versions)."""
        if not 1 <= line <= len(self.lines):
            return False
        return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", self.lines[line - 1]) is not None

    def function_names(self, function: str) -> set[str] | None:
        """Every name the function (its nested functions included) binds or reads; None when the file
        has no single function of that name. A variable of Numba's own (a `parallel=True` function's
        lowering names `a_shape`, `num_threads_var`...) is none of them."""
        if function in self._function_names:
            return self._function_names[function]
        functions = [
            node
            for node in ast.walk(self.tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function
        ]
        if len(functions) != 1:
            self._function_names[function] = None
            return None
        names: set[str] = set()
        for node in ast.walk(functions[0]):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
        self._function_names[function] = names
        return names

    def record_sources(self, function: str, name: str) -> set[str] | None:
        """The arrays the variable `name` of `function` is taken from, when every assignment to it is
        `name = ARRAY[...]` or `for name in ARRAY:` with ARRAY a plain name; None otherwise (another
        form of assignment, a parameter of that name, no such function, or several of that name)."""
        functions = [
            node
            for node in ast.walk(self.tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function
        ]
        if len(functions) != 1:
            return None
        arrays: set[str] = set()
        allowed: set[int] = set()
        for node in ast.walk(functions[0]):
            if isinstance(node, ast.arg) and node.arg == name:
                return None
            if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
                return None
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == name
                and isinstance(node.value, ast.Subscript)
                and isinstance(node.value.value, ast.Name)
            ):
                arrays.add(node.value.value.id)
                allowed.add(id(node.targets[0]))
            elif (
                isinstance(node, ast.For)
                and isinstance(node.target, ast.Name)
                and node.target.id == name
                and isinstance(node.iter, ast.Name)
            ):
                arrays.add(node.iter.id)
                allowed.add(id(node.target))
        for node in ast.walk(functions[0]):
            if (
                isinstance(node, ast.Name)
                and node.id == name
                and not isinstance(node.ctx, ast.Load)
                and id(node) not in allowed
            ):
                return None
        return arrays or None

    def ran_before(self, line_a: int, line_b: int) -> bool:
        where = self.start.get(line_a)
        if where is None:
            return True  # unknown: assume it did (more versions superseded -> more "unavailable")
        body_id, index = where
        for first, last, span_body, span_index in self.spans:
            if span_body == body_id and first <= line_b <= last:
                return span_index > index
        return False


_source_cache: dict[tuple[str, float], SourceIndex | None] = {}
_source_lock = threading.Lock()


def source_index(path: str) -> SourceIndex | None:
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        return None
    key = (path, mtime)
    with _source_lock:
        if key in _source_cache:
            return _source_cache[key]
    try:
        index: SourceIndex | None = SourceIndex(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        index = None
    with _source_lock:
        _source_cache[key] = index
    return index
