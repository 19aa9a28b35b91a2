"""Variables of jitted frames: Numba's data model read through gdb, turned into DAP-shaped values.

What gdb's own printing gets wrong here (measured, see DESIGN.md "Debugger facts"):
- Numba zeroes a variable's storage when the variable dies (`ir.Del`), and with debug info on it keeps
  dead values until the end of their block. At NUMBA_OPT=0 the DWARF location of a dead variable is the
  constant 0 and the register of a live one. So an argument `n` reads 0 after its last use although the
  program passed 4, and old SSA versions (`total`, `total$2`) keep stale values beside the live one.
- Numba's DWARF `bool` has no encoding gdb can print; `datetime64` elements are typed as doubles.

The rules here, so that a wrong value is never shown:
- A value whose bytes are all zero is "unavailable": Numba's "dead" marker cannot be told from a real
  zero. An argument of an entry call (jitted frame called from Python) is instead recovered from the
  dispatcher frame's `args` tuple, which holds what Python passed (right for the whole call when the
  argument is never reassigned, i.e. has no SSA versions).
- SSA versions of one name fold into one variable: a version counts when its value is readable and
  not zero; a version is superseded when another version is assigned after it on a line that surely
  ran before the current line (same statement list of the Python source). Exactly one remaining
  candidate is the live value; none or several make the variable unavailable.
- Types come from the DWARF type names, which are Numba's own type strings.

The reading itself is one gdb-side MI command (values_gdb.py, `-numba-lens-frame`) plus
`-data-read-memory-bytes` for array elements, strings and containers.
"""

from __future__ import annotations

import ast
import math
import os
import re
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pyserver.debug.gdb.mi_protocol import GdbCommandError, MIExecutor
from pyserver.debug.live_versions import LiveVersions

EvaluateContext = Literal["watch", "hover", "repl", "clipboard", "variables"]

HELPER_PATH = Path(__file__).with_name("values_gdb.py")
UNAVAILABLE = "<unavailable>"
PREVIEW_ITEMS = 10
MAX_READ = 1 << 20  # one -data-read-memory-bytes call reads at most this much
MAX_STRING_CHARS = 10_000
DEFAULT_PAGE = 1000


class JitValueError(Exception):
    """An expression or handle that cannot be evaluated; the message is for the user."""


@dataclass
class ChildrenHandle:
    """Opaque to the adapter: pass it back to `JitValueReader.children`. Valid while the thread stays
    stopped (the adapter drops its variable references on resume, as DAP requires)."""

    kind: str  # "static" | "array" | "list" | "dict"
    thread_id: int
    frame_level: int
    items: list[JitVariable] = field(default_factory=list)  # static children
    data: int = 0  # array data pointer / list items pointer / dict entries pointer
    shape: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()
    dtype: NumbaType | None = None
    layout: str = "A"
    count: int = 0  # list / dict: number of items
    item_size: int = 0
    key_type: NumbaType | None = None
    key_offset: int = 0
    value_offset: int = 0
    expression: str = ""  # evaluate name of the parent


@dataclass
class JitVariable:
    name: str
    value: str
    type: str  # Numba type name ("" when unknown)
    children: ChildrenHandle | None = None
    named_count: int = 0
    indexed_count: int = 0
    available: bool = True
    evaluate_name: str | None = None
    # The decoded value for expression evaluation: a Python scalar, or None for containers.
    raw: Any = field(default=None, repr=False, compare=False)
    # Extra notes for the user (why unavailable, which version was chosen).
    note: str = ""

    def to_dap(self) -> dict[str, Any]:
        """A DAP `Variable` without `variablesReference`: the adapter adds it for `children` (and keeps
        the handle to answer `variables` with `JitValueReader.children(handle, start, count)`)."""
        out: dict[str, Any] = {"name": self.name, "value": self.value, "type": self.type}
        if self.evaluate_name:
            out["evaluateName"] = self.evaluate_name
        if self.named_count:
            out["namedVariables"] = self.named_count
        if self.indexed_count:
            out["indexedVariables"] = self.indexed_count
        if not self.available:
            out["value"] = f"{UNAVAILABLE} ({self.note})" if self.note else UNAVAILABLE
            out["presentationHint"] = {"attributes": ["readOnly"]}
        return out


@dataclass
class Scope:
    name: str  # "Arguments" | "Locals"
    variables: list[JitVariable]
    thread_id: int = 0
    frame_level: int = 0

    @property
    def handle(self) -> ChildrenHandle:
        """Expand a scope like a variable: `children(scope.handle)` pages its variables."""
        return ChildrenHandle("static", self.thread_id, self.frame_level, items=self.variables)

    def to_dap(self) -> dict[str, Any]:
        """A DAP `Scope` without `variablesReference` (the adapter maps it to `handle`)."""
        return {
            "name": self.name,
            "presentationHint": "arguments" if self.name == "Arguments" else "locals",
            "namedVariables": len(self.variables),
            "expensive": False,
        }


# ----------------------------------------------------------------------------------------------------
# Numba type strings
# ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NumbaType:
    """A parsed Numba type name. kind: int, uint, float, bool, complex, datetime, timedelta, none,
    array, tuple, record, unicode, list, dict, jitclass, unknown."""

    kind: str
    text: str
    size: int = 0  # scalars: bytes
    dtype: NumbaType | None = None  # array
    ndim: int = 0
    layout: str = "A"
    members: tuple[NumbaType, ...] = ()  # tuple members / list item / dict key+value
    names: tuple[str, ...] = ()  # record / jitclass field names
    offsets: tuple[int, ...] = ()  # record field offsets
    unit: str = ""  # datetime/timedelta unit
    class_name: str = ""  # jitclass / named tuple name


_LLVM_SUFFIX = re.compile(r"^(.*?) \((\{.*\}|\[.*\]|[a-z][a-z0-9]*\**)\)$", re.S)
_SCALARS = {
    **{f"int{b}": ("int", b // 8) for b in (8, 16, 32, 64)},
    **{f"uint{b}": ("uint", b // 8) for b in (8, 16, 32, 64)},
    "intp": ("int", 8),
    "uintp": ("uint", 8),
    "float32": ("float", 4),
    "float64": ("float", 8),
    "float16": ("float", 2),
    "bool": ("bool", 1),
    "boolean": ("bool", 1),
    "complex64": ("complex", 8),
    "complex128": ("complex", 16),
    "none": ("none", 0),
}


def strip_llvm_suffix(dwarf_name: str) -> str:
    """`array(float64, 1d, C) ({i8*, ...})` -> `array(float64, 1d, C)`."""
    match = _LLVM_SUFFIX.match(dwarf_name.strip())
    return match.group(1) if match else dwarf_name.strip()


def _split_args(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char in "([<":
            depth += 1
        elif char in ")]>":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


def parse_numba_type(text: str) -> NumbaType:
    """Parse the Numba type names that appear in DWARF. Anything else is kind "unknown"."""
    text = strip_llvm_suffix(text)
    if text in _SCALARS:
        kind, size = _SCALARS[text]
        return NumbaType(kind, text, size=size)
    match = re.fullmatch(r"(datetime64|timedelta64)(?:\[(\w*)\])?", text)
    if match:
        return NumbaType(match.group(1)[:-2], text, size=8, unit=match.group(2) or "")
    match = re.fullmatch(r"Literal\[(int|bool)\]\((.*)\)", text, re.S)
    if match:
        # A variable typed as a literal is stored as the plain type (int64 / bool).
        return NumbaType("int", text, size=8) if match.group(1) == "int" else NumbaType("bool", text, size=1)
    if text == "unicode_type":
        return NumbaType("unicode", text, size=48)
    match = re.fullmatch(r"(?:readonly |unaligned )*array\((.*), (\d+)d, ([CFA])\)", text, re.S)
    if match:
        dtype = parse_numba_type(match.group(1))
        return NumbaType("array", text, dtype=dtype, ndim=int(match.group(2)), layout=match.group(3))
    match = re.fullmatch(r"Record\((.*);(\d+);(True|False)\)", text, re.S)
    if match:
        names: list[str] = []
        members: list[NumbaType] = []
        offsets: list[int] = []
        for part in _split_args(match.group(1)):
            field_match = re.fullmatch(r"(\w+)\[type=(.*);offset=(\d+)\]", part, re.S)
            if not field_match:
                return NumbaType("unknown", text)
            names.append(field_match.group(1))
            members.append(parse_numba_type(field_match.group(2)))
            offsets.append(int(field_match.group(3)))
        return NumbaType(
            "record",
            text,
            size=int(match.group(2)),
            members=tuple(members),
            names=tuple(names),
            offsets=tuple(offsets),
        )
    match = re.fullmatch(r"ListType\[(.*)\]", text, re.S)
    if match:
        return NumbaType("list", text, members=(parse_numba_type(match.group(1)),))
    match = re.fullmatch(r"DictType\[(.*)\](?:<iv=.*>)?", text, re.S)
    if match:
        parts = _split_args(match.group(1))
        if len(parts) == 2:
            return NumbaType("dict", text, members=tuple(parse_numba_type(p) for p in parts))
        return NumbaType("unknown", text)
    match = re.fullmatch(r"instance\.jitclass\.([\w.]+)#[0-9a-fA-F]+<(.*)>", text, re.S)
    if match:
        names = []
        members = []
        for part in _split_args(match.group(2)):
            name, _, type_text = part.partition(":")
            names.append(name.strip())
            members.append(parse_numba_type(type_text))
        return NumbaType(
            "jitclass", text, members=tuple(members), names=tuple(names), class_name=match.group(1)
        )
    match = re.fullmatch(r"(\w+)\((.*)\)", text, re.S)
    if match and match.group(1) not in ("array", "Record", "Literal", "Optional"):
        head, body = match.group(1), match.group(2)
        uni = re.fullmatch(r"(.*) x (\d+)", body, re.S)
        if uni and "," not in _split_args(body)[0] and len(_split_args(body)) == 1:
            member = parse_numba_type(uni.group(1))
            members_t: tuple[NumbaType, ...] = (member,) * int(uni.group(2))
        else:
            members_t = tuple(parse_numba_type(p) for p in _split_args(body))
        class_name = "" if head in ("Tuple", "UniTuple") else head
        return NumbaType("tuple", text, members=members_t, class_name=class_name)
    return NumbaType("unknown", text)


# ----------------------------------------------------------------------------------------------------
# Scalar decoding and display
# ----------------------------------------------------------------------------------------------------


def _format_float(value: float, size: int = 8) -> str:
    """Python's repr; for float32/float16 NumPy's shortest repr of that width (0.1, not 0.10000000149)."""
    if size in (2, 4) and math.isfinite(value):
        import numpy as np

        return repr(float(str(np.float32(value) if size == 4 else np.float16(value))))
    return repr(float(value))


def _format_complex(value: complex, size: int = 16) -> str:
    if size == 8:
        import numpy as np

        return repr(complex(float(str(np.float32(value.real))), float(str(np.float32(value.imag)))))
    return repr(complex(value))


def _decode_datetime(kind: str, unit: str, raw: int) -> str:
    import numpy as np

    if raw == -(1 << 63):
        return "NaT"
    try:
        make: Any = np.datetime64 if kind == "datetime" else np.timedelta64
        return str(make(raw, unit)) if unit else str(raw)
    except (ValueError, OverflowError):
        return str(raw)


def decode_scalar(numba_type: NumbaType, data: bytes) -> tuple[str, Any]:
    """(display text, Python value) of one scalar of the given type; raises ValueError if the bytes
    do not fit."""
    kind = numba_type.kind
    size = numba_type.size
    if len(data) < size:
        raise ValueError("short read")
    chunk = data[:size]
    if kind in ("int", "uint"):
        number = int.from_bytes(chunk, "little", signed=kind == "int")
        return str(number), number
    if kind == "float":
        fmt = {8: "<d", 4: "<f", 2: "<e"}[size]
        number_f = struct.unpack(fmt, chunk)[0]
        return _format_float(number_f, size), number_f
    if kind == "bool":
        flag = chunk != b"\0" * size
        return ("True" if flag else "False"), flag
    if kind == "complex":
        fmt = "<dd" if size == 16 else "<ff"
        real, imag = struct.unpack(fmt, chunk)
        number_c = complex(real, imag)
        return _format_complex(number_c, size), number_c
    if kind in ("datetime", "timedelta"):
        number = int.from_bytes(chunk, "little", signed=True)
        return _decode_datetime(kind, numba_type.unit, number), number
    if kind == "none":
        return "None", None
    raise ValueError(f"not a scalar: {numba_type.text}")


def _is_scalar(numba_type: NumbaType) -> bool:
    return numba_type.kind in ("int", "uint", "float", "bool", "complex", "datetime", "timedelta", "none")


# ----------------------------------------------------------------------------------------------------
# The raw report of one frame (from values_gdb.py)
# ----------------------------------------------------------------------------------------------------


@dataclass
class _RawVar:
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
class _FrameReport:
    thread_id: int
    frame_level: int
    pc: int
    line: int
    file: str
    function: str
    variables: list[_RawVar]
    entry_args: list[dict[str, Any]] | None
    entry_note: str


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


def _raw_var(entry: dict[str, Any]) -> _RawVar:
    name = str(entry.get("name", ""))
    match = _VERSIONED.match(name)
    base, version = (match.group(1), int(match.group(2))) if match else (name, 0)
    layout = entry.get("layout") or {}
    data, known = _parse_hex(str(entry.get("bytes", "")))
    type_name = str(layout.get("type", ""))
    return _RawVar(
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


class _SourceIndex:
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

    def ran_before(self, line_a: int, line_b: int) -> bool:
        where = self.start.get(line_a)
        if where is None:
            return True  # unknown: assume it did (more versions superseded -> more "unavailable")
        body_id, index = where
        for first, last, span_body, span_index in self.spans:
            if span_body == body_id and first <= line_b <= last:
                return span_index > index
        return False


_source_cache: dict[tuple[str, float], _SourceIndex | None] = {}
_source_lock = threading.Lock()


def _source_index(path: str) -> _SourceIndex | None:
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        return None
    key = (path, mtime)
    with _source_lock:
        if key in _source_cache:
            return _source_cache[key]
    try:
        index: _SourceIndex | None = _SourceIndex(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        index = None
    with _source_lock:
        _source_cache[key] = index
    return index


# ----------------------------------------------------------------------------------------------------
# The reader
# ----------------------------------------------------------------------------------------------------


def _mi_quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


class JitValueReader:
    """Variables, children and evaluation for jitted frames, over any MIExecutor (the gdb back end).

    thread_id is gdb's global thread number, frame_level gdb's frame level. Results are cached per
    (thread, level) until `invalidate()`, which the adapter calls whenever the inferior resumes."""

    def __init__(
        self,
        gdb: MIExecutor,
        *,
        log: Callable[[str], None] | None = None,
        live_versions: LiveVersions | None = None,
    ) -> None:
        self.gdb = gdb
        self._log = log or (lambda _msg: None)
        self.live_versions = live_versions
        self._helper_loaded = False
        self._helper_error = ""
        self._lock = threading.RLock()
        self._reports: dict[tuple[int, int], _FrameReport] = {}
        self._scopes: dict[tuple[int, int], list[Scope]] = {}

    # --- public API ----------------------------------------------------------------------------------
    def invalidate(self) -> None:
        """Forget cached frames (call on every resume)."""
        with self._lock:
            self._reports.clear()
            self._scopes.clear()

    reset = invalidate

    def frame_scopes(self, thread_id: int, frame_level: int) -> list[Scope]:
        key = (thread_id, frame_level)
        with self._lock:
            if key in self._scopes:
                return self._scopes[key]
            report = self._report(thread_id, frame_level)
            scopes = self._build_scopes(report)
            self._scopes[key] = scopes
            return scopes

    def children(self, handle: ChildrenHandle, start: int = 0, count: int | None = None) -> list[JitVariable]:
        with self._lock:
            if handle.kind == "static":
                items = handle.items
                end = len(items) if count is None else start + count
                return items[start:end]
            if handle.kind == "array":
                return self._array_children(handle, start, count)
            if handle.kind == "list":
                return self._list_children(handle, start, count)
            if handle.kind == "dict":
                return self._dict_children(handle, start, count)
            raise JitValueError(f"unknown children handle {handle.kind!r}")

    def evaluate(
        self, thread_id: int, frame_level: int, expression: str, context: str = "watch"
    ) -> JitVariable:
        """Watch/hover/clipboard: a side-effect-free subset of Python (names, attributes, constant
        indices, arithmetic, comparisons) over the same values the Variables view shows. Calls and
        assignments are refused. REPL: the same subset first (so a name never shows gdb's stale value),
        then anything else goes to gdb as a gdb expression."""
        expression = expression.strip()
        if not expression:
            raise JitValueError("empty expression")
        with self._lock:
            scopes = self.frame_scopes(thread_id, frame_level)
            names: dict[str, JitVariable] = {}
            for scope in scopes:
                for variable in scope.variables:
                    names.setdefault(variable.name, variable)
            try:
                tree = ast.parse(expression, mode="eval")
            except SyntaxError:
                tree = None
            if tree is not None:
                try:
                    return _Evaluator(self, thread_id, frame_level, names, expression).run(tree)
                except _NotInSubset as exc:
                    if context != "repl":
                        raise JitValueError(str(exc)) from None
            elif context != "repl":
                if re.search(r"(?<![=!<>])=(?!=)|\+\+|--", expression):
                    raise JitValueError("assignments are not evaluated in watch or hover expressions")
                raise JitValueError("not a Python expression")
            return self._gdb_evaluate(thread_id, frame_level, expression)

    # --- reading -------------------------------------------------------------------------------------
    def _ensure_helper(self) -> None:
        if self._helper_loaded:
            return
        if self._helper_error:
            raise JitValueError(self._helper_error)
        try:
            self.gdb.execute(f"-interpreter-exec console {_mi_quote('source ' + str(HELPER_PATH))}")
            self._helper_loaded = True
        except GdbCommandError as exc:
            self._helper_error = f"cannot load the value reader into gdb (gdb 13+ with Python needed): {exc}"
            raise JitValueError(self._helper_error) from None

    def _report(self, thread_id: int, frame_level: int) -> _FrameReport:
        key = (thread_id, frame_level)
        if key in self._reports:
            return self._reports[key]
        self._ensure_helper()
        try:
            payload = self.gdb.execute(f"-numba-lens-frame {int(thread_id)} {int(frame_level)}", timeout=20.0)
        except GdbCommandError as exc:
            raise JitValueError(
                f"cannot read frame {frame_level} of thread {thread_id}: {exc.message}"
            ) from None
        entry_args = payload.get("entry_args")
        report = _FrameReport(
            thread_id=thread_id,
            frame_level=frame_level,
            pc=int(payload.get("pc", 0) or 0),
            line=int(payload.get("line", 0) or 0),
            file=str(payload.get("file", "")),
            function=str(payload.get("function", "")),
            variables=[_raw_var(item) for item in payload.get("vars", []) or []],
            entry_args=list(entry_args) if isinstance(entry_args, list) else None,
            entry_note=str(payload.get("entry_note", "")),
        )
        self._reports[key] = report
        return report

    def read_memory(self, address: int, size: int) -> bytes:
        """Bytes of the inferior's memory (raises JitValueError when unreadable)."""
        if size <= 0:
            return b""
        if address <= 0:
            raise JitValueError("null pointer")
        out = bytearray()
        offset = 0
        while offset < size:
            chunk = min(MAX_READ, size - offset)
            try:
                payload = self.gdb.execute(f"-data-read-memory-bytes {address + offset} {chunk}")
            except GdbCommandError as exc:
                raise JitValueError(
                    f"memory at {address + offset:#x} is not readable: {exc.message}"
                ) from None
            blocks = payload.get("memory") or []
            got = bytearray()
            for block in blocks:
                got += bytes.fromhex(str(block.get("contents", "")))
            if len(got) < chunk:
                raise JitValueError(f"memory at {address + offset:#x} is only partly readable")
            out += got[:chunk]
            offset += chunk
        return bytes(out)

    # --- scopes --------------------------------------------------------------------------------------
    def _build_scopes(self, report: _FrameReport) -> list[Scope]:
        groups: dict[str, list[_RawVar]] = {}
        order: list[str] = []
        for raw in report.variables:
            if raw.base not in groups:
                groups[raw.base] = []
                order.append(raw.base)
            groups[raw.base].append(raw)
        arg_names = [raw.name for raw in report.variables if raw.is_arg]
        arguments: list[JitVariable] = []
        local_vars: list[JitVariable] = []
        source = _source_index(report.file) if report.file else None
        for base in order:
            versions = sorted(groups[base], key=lambda r: r.version)
            is_arg = any(v.is_arg for v in versions)
            variable = self._fold(report, base, versions, arg_names, source)
            (arguments if is_arg else local_vars).append(variable)
        return [
            Scope("Arguments", arguments, report.thread_id, report.frame_level),
            Scope("Locals", local_vars, report.thread_id, report.frame_level),
        ]

    def _fold(
        self,
        report: _FrameReport,
        base: str,
        versions: list[_RawVar],
        arg_names: list[str],
        source: _SourceIndex | None,
    ) -> JitVariable:
        # The type to show when no version is readable: a plain type rather than a literal one.
        plain = [v for v in versions if not v.numba_type.text.startswith("Literal[")]
        type_text = (plain or versions)[-1].numba_type.text
        # An argument never reassigned: what Python passed is its value for the whole call.
        arg = next((v for v in versions if v.is_arg), None)
        if arg is not None and len(versions) == 1:
            recovered = self._recover_argument(report, arg, arg_names)
            if recovered is not None:
                return recovered
        live = self._live_version(report, base, versions)
        if live is not None:
            return live
        candidates: list[tuple[_RawVar, JitVariable]] = []
        zero_seen = False
        for raw in versions:
            if raw.error:
                continue
            decoded = self._decode_var(report, raw, base)
            if decoded is None:
                if raw.is_zero():
                    zero_seen = True
                continue
            candidates.append((raw, decoded))
        line = report.line
        if source is not None and not all(source.mentions(v.line, base) for v in versions if v.line):
            source = None  # the file changed since the compile: judge without it (more "unavailable")
        if len(candidates) > 1:
            remaining = []
            for raw, decoded in candidates:
                superseded = any(
                    other is not raw
                    and raw.line < other.line < line
                    and (source is None or source.ran_before(other.line, line))
                    for other in versions
                )
                if not superseded:
                    remaining.append((raw, decoded))
            candidates = remaining
        if len(candidates) == 1:
            raw, decoded = candidates[0]
            if len(versions) > 1:
                decoded.note = f"live SSA version: {raw.name}"
            return decoded
        if len(candidates) > 1 and len({(d.value, d.type) for _, d in candidates}) == 1:
            # Several versions alive at once hold one value (Numba's phi copies `best$3 = best$1` keep
            # both until the block ends): whichever is live, this is the value.
            raw, decoded = candidates[-1]
            decoded.note = "SSA versions agree: " + ", ".join(r.name for r, _ in candidates)
            return decoded
        if len(candidates) > 1:
            names = ", ".join(raw.name for raw, _ in candidates)
            note = f"several SSA versions hold values here ({names}); the live one cannot be told"
        elif arg is not None and report.entry_args is None and report.entry_note:
            note = (
                f"not readable here (Numba's debug info reads 0 once a variable is dead; {report.entry_note})"
            )
        elif zero_seen:
            note = "not live here (reads 0, which Numba also writes when a variable dies)"
        else:
            note = "optimized out or not yet assigned"
        return JitVariable(
            name=base, value=UNAVAILABLE, type=type_text, available=False, note=note, evaluate_name=base
        )

    def _live_version(self, report: _FrameReport, base: str, versions: list[_RawVar]) -> JitVariable | None:
        """The variable as Numba's IR says it is where this line starts (live_versions.py): the SSA
        version holding it, and a 0 trusted when no `del` can have written it. With several candidate
        versions, a value only when they all hold it. None: no word from the IR, or a value this rule
        cannot read (the caller's rules then decide)."""
        if self.live_versions is None or not report.file:
            return None
        if report.frame_level != 0:
            return None  # a caller frame stands inside its line (a call), not where the line starts
        candidates = self.live_versions.lookup(report.file, report.function, report.line, base)
        if not candidates:
            return None
        by_name = {v.name: v for v in versions if not v.error}
        decoded: list[tuple[_RawVar, JitVariable]] = []
        for live in candidates:
            raw = by_name.get(live.version)
            if raw is None:
                return None
            numba_type = raw.numba_type
            if raw.is_zero() and _is_scalar(numba_type) and raw.bytes_known(0, numba_type.size):
                if not live.never_freed:
                    if len(candidates) > 1:
                        return None
                    return JitVariable(
                        base,
                        UNAVAILABLE,
                        numba_type.text,
                        available=False,
                        note="not live here (Numba freed it: no later use on some path to this line)",
                        evaluate_name=base,
                    )
                text, value = decode_scalar(numba_type, raw.data)
                decoded.append((raw, JitVariable(base, text, numba_type.text, raw=value, evaluate_name=base)))
                continue
            found = self._decode_var(report, raw, base)
            if found is None:
                return None
            decoded.append((raw, found))
        if len(decoded) > 1 and not all(_is_scalar(r.numba_type) for r, _ in decoded):
            return None  # equal texts of arrays or records need not be equal values
        if len({(d.value, d.type) for _, d in decoded}) != 1:
            return None
        raw, variable = decoded[0]
        if len(versions) > 1:
            names = ", ".join(r.name for r, _ in decoded)
            variable.note = f"live SSA version: {names} (Numba's IR)"
        return variable

    # --- decoding one variable -----------------------------------------------------------------------
    def _decode_var(self, report: _FrameReport, raw: _RawVar, name: str) -> JitVariable | None:
        """The variable if its bytes are readable and not Numba's zero "dead" marker, else None."""
        numba_type = raw.numba_type
        kind = numba_type.kind
        try:
            if _is_scalar(numba_type):
                if not raw.bytes_known(0, numba_type.size) or raw.is_zero():
                    return None
                text, value = decode_scalar(numba_type, raw.data)
                return JitVariable(name, text, numba_type.text, raw=value, evaluate_name=name)
            if kind == "array":
                return self._decode_array_struct(report, raw, name)
            if kind == "tuple":
                if not raw.all_known() or raw.is_zero():
                    return None
                return self._decode_tuple(report, numba_type, raw.layout, raw.data, name)
            if kind == "unicode":
                if not raw.all_known() or raw.is_zero():
                    return None
                return self._decode_unicode(raw.data, raw.layout, name)
            if kind in ("list", "dict", "jitclass"):
                data_field = raw.field("data")
                if data_field is None or not raw.bytes_known(data_field[0], 8) or raw.is_zero():
                    return None
                pointer = int.from_bytes(raw.data[data_field[0] : data_field[0] + 8], "little")
                if pointer == 0:
                    return None
                if kind == "list":
                    return self._decode_list(report, numba_type, pointer, name)
                if kind == "dict":
                    return self._decode_dict(report, numba_type, pointer, name)
                return self._decode_jitclass(report, numba_type, raw.layout, pointer, name)
            if kind == "record":
                return None
            # Unknown Numba type: only what DWARF says plainly (an int or float of known size).
            layout_code = raw.layout.get("code")
            size = int(raw.layout.get("size", 0) or 0)
            if layout_code in ("int", "float") and raw.bytes_known(0, size) and not raw.is_zero():
                guess = NumbaType("int" if layout_code == "int" else "float", numba_type.text, size=size)
                text, value = decode_scalar(guess, raw.data)
                return JitVariable(name, text, numba_type.text, raw=value, evaluate_name=name)
            return None
        except (ValueError, KeyError, struct.error, JitValueError) as exc:
            self._log(f"cannot decode {raw.name}: {exc}")
            return None

    def _decode_array_struct(self, report: _FrameReport, raw: _RawVar, name: str) -> JitVariable | None:
        numba_type = raw.numba_type
        ndim = numba_type.ndim
        offsets = {}
        for field_name in ("data", "shape", "strides"):
            found = raw.field(field_name)
            if found is None:
                return None
            offsets[field_name] = found[0]
        if not raw.bytes_known(offsets["data"], 8):
            return None
        if not raw.bytes_known(offsets["shape"], 8 * ndim) or not raw.bytes_known(
            offsets["strides"], 8 * ndim
        ):
            return None
        data = int.from_bytes(raw.data[offsets["data"] : offsets["data"] + 8], "little")
        shape = tuple(
            int.from_bytes(
                raw.data[offsets["shape"] + 8 * i : offsets["shape"] + 8 * i + 8], "little", signed=True
            )
            for i in range(ndim)
        )
        strides = tuple(
            int.from_bytes(
                raw.data[offsets["strides"] + 8 * i : offsets["strides"] + 8 * i + 8], "little", signed=True
            )
            for i in range(ndim)
        )
        if data == 0 and not any(shape) and not any(strides):
            return None  # Numba's zeroed dead array
        if any(s < 0 for s in shape) or (data == 0 and math.prod(shape) > 0):
            return None
        return self._array_variable(
            report.thread_id, report.frame_level, name, numba_type, data, shape, strides
        )

    def _array_variable(
        self,
        thread_id: int,
        frame_level: int,
        name: str,
        numba_type: NumbaType,
        data: int,
        shape: tuple[int, ...],
        strides: tuple[int, ...],
        *,
        evaluate_name: str | None = None,
        display: str | None = None,
    ) -> JitVariable:
        assert numba_type.dtype is not None
        shape_text = "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        handle = ChildrenHandle(
            "array",
            thread_id,
            frame_level,
            data=data,
            shape=shape,
            strides=strides,
            dtype=numba_type.dtype,
            layout=numba_type.layout,
            expression=evaluate_name or name,
        )
        return JitVariable(
            name=name,
            value=display or f"{numba_type.text} shape={shape_text}",
            type=numba_type.text,
            children=handle if shape and shape[0] > 0 else None,
            indexed_count=shape[0] if shape else 0,
            raw=handle,
            evaluate_name=evaluate_name or name,
        )

    def _decode_tuple(
        self, report: _FrameReport, numba_type: NumbaType, layout: dict[str, Any], data: bytes, name: str
    ) -> JitVariable | None:
        members = numba_type.members
        offsets: list[tuple[int, dict[str, Any]]] = []
        if layout.get("code") == "struct":
            fields = layout.get("fields", [])
            if len(fields) != len(members):
                return None
            offsets = [(int(f["offset"]), f) for f in fields]
        elif layout.get("code") == "array":
            elem = layout.get("elem", {})
            elem_size = int(elem.get("size", 0) or 0)
            if int(layout.get("count", 0) or 0) != len(members):
                return None
            offsets = [(i * elem_size, elem) for i in range(len(members))]
        elif not members:
            offsets = []
        else:
            return None
        children: list[JitVariable] = []
        for index, (member, (offset, member_layout)) in enumerate(zip(members, offsets, strict=False)):
            size = int(member_layout.get("size", 0) or 0)
            chunk = data[offset : offset + size]
            child_name = f"[{index}]"
            expr = f"{name}[{index}]"
            child = self._decode_bytes(report, member, member_layout, chunk, child_name, expr)
            children.append(child)
        return tuple_variable(name, numba_type, report, children)

    def _decode_bytes(
        self,
        report: _FrameReport,
        numba_type: NumbaType,
        layout: dict[str, Any],
        data: bytes,
        name: str,
        expression: str,
    ) -> JitVariable:
        """A member of a tuple (already known to be live): decode by type, no zero rule."""
        try:
            if _is_scalar(numba_type):
                text, value = decode_scalar(numba_type, data)
                return JitVariable(name, text, numba_type.text, raw=value, evaluate_name=expression)
            if numba_type.kind == "tuple":
                decoded = self._decode_tuple(report, numba_type, layout, data, name)
                if decoded is not None:
                    decoded.evaluate_name = expression
                    return decoded
            if numba_type.kind == "array":
                fake = _RawVar(name, name, 0, 0, False, numba_type, layout, data, [True] * len(data))
                array = self._decode_array_struct(report, fake, name)
                if array is not None:
                    array.evaluate_name = expression
                    return array
            if numba_type.kind == "unicode":
                text_var = self._decode_unicode(data, layout, name)
                if text_var is not None:
                    return text_var
        except (ValueError, KeyError, struct.error, JitValueError) as exc:
            self._log(f"cannot decode {expression}: {exc}")
        return JitVariable(name, UNAVAILABLE, numba_type.text, available=False, note="type not supported")

    def _decode_unicode(self, data: bytes, layout: dict[str, Any], name: str) -> JitVariable | None:
        fields = {f["name"]: int(f["offset"]) for f in layout.get("fields", [])}
        if not {"data", "length", "kind"} <= fields.keys():
            return None
        pointer = int.from_bytes(data[fields["data"] : fields["data"] + 8], "little")
        length = int.from_bytes(data[fields["length"] : fields["length"] + 8], "little", signed=True)
        char_kind = int.from_bytes(data[fields["kind"] : fields["kind"] + 4], "little", signed=True)
        if pointer == 0 or length < 0 or char_kind not in (1, 2, 4):
            return None
        shown = min(length, MAX_STRING_CHARS)
        raw = self.read_memory(pointer, shown * char_kind) if shown else b""
        encoding = {1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[char_kind]
        text = raw.decode(encoding, errors="replace")
        display = repr(text) + ("…" if shown < length else "")
        return JitVariable(name, display, "unicode_type", raw=text, evaluate_name=name)

    def _decode_list(
        self, report: _FrameReport, numba_type: NumbaType, pointer: int, name: str
    ) -> JitVariable:
        # NB_List (numba/cext/listobject.h): size, item_size, allocated, is_mutable, methods[2], items.
        header = self.read_memory(pointer, 56)
        size, item_size, allocated = struct.unpack("<qqq", header[:24])
        items = int.from_bytes(header[48:56], "little")
        item_type = numba_type.members[0]
        if size < 0 or allocated < size or (size and items == 0):
            raise JitValueError("typed list header unreadable")
        handle = ChildrenHandle(
            "list",
            report.thread_id,
            report.frame_level,
            data=items,
            count=size,
            item_size=item_size,
            dtype=item_type,
            expression=name,
        )
        readable = _is_scalar(item_type) or item_type.kind == "unicode"
        preview = self._list_children(handle, 0, min(size, PREVIEW_ITEMS)) if readable else []
        text = (
            "["
            + ", ".join(c.value for c in preview)
            + (", …" if size > len(preview) and preview else "")
            + "]"
        )
        if not preview and size:
            text = f"{numba_type.text} len={size}"
        return JitVariable(
            name,
            text,
            numba_type.text,
            children=handle if size else None,
            indexed_count=size,
            raw=handle,
            evaluate_name=name,
        )

    def _decode_dict(
        self, report: _FrameReport, numba_type: NumbaType, pointer: int, name: str
    ) -> JitVariable:
        # NB_Dict: used, keys -> NB_DictKeys: size, usable, nentries, key_size, val_size, entry_size,
        # entry_offset, methods[5], indices[] (numba/cext/dictobject.h); entries after the indices.
        used, keys = struct.unpack("<qQ", self.read_memory(pointer, 16))
        if keys == 0:
            raise JitValueError("typed dict has no key table")
        header = self.read_memory(keys, 56)
        _size, _usable, nentries, key_size, val_size, entry_size, entry_offset = struct.unpack("<7q", header)
        key_type, value_type = numba_type.members
        if key_size != _sizeof(key_type) or val_size != _sizeof(value_type) or nentries < 0:
            raise JitValueError("typed dict layout does not match its type")
        handle = ChildrenHandle(
            "dict",
            report.thread_id,
            report.frame_level,
            data=keys + 96 + entry_offset,
            count=nentries,
            item_size=entry_size,
            key_type=key_type,
            dtype=value_type,
            key_offset=8,
            value_offset=8 + _aligned(key_size),
            expression=name,
        )
        entries = self._dict_children(handle, 0, None)
        handle.kind = "static"
        handle.items = entries
        preview = ", ".join(f"{c.name}: {c.value}" for c in entries[:PREVIEW_ITEMS])
        text = "{" + preview + (", …" if len(entries) > PREVIEW_ITEMS else "") + "}"
        return JitVariable(
            name,
            text,
            numba_type.text,
            children=handle if entries else None,
            named_count=len(entries),
            raw=entries,
            evaluate_name=name,
            note=f"{used} items",
        )

    def _decode_jitclass(
        self, report: _FrameReport, numba_type: NumbaType, layout: dict[str, Any], pointer: int, name: str
    ) -> JitVariable:
        data_layout: dict[str, Any] = {}
        for item in layout.get("fields", []):
            if item.get("name") == "data":
                data_layout = item.get("target", {})
        fields = data_layout.get("fields", [])
        size = int(data_layout.get("size", 0) or 0)
        if not fields or size <= 0:
            raise JitValueError("jitclass layout unknown")
        memory = self.read_memory(pointer, size)
        by_name = {str(f.get("name", "")): f for f in fields}
        children: list[JitVariable] = []
        for field_name, field_type in zip(numba_type.names, numba_type.members, strict=False):
            item = by_name.get(f"m_{field_name}") or by_name.get(field_name)
            if item is None:
                children.append(JitVariable(field_name, UNAVAILABLE, field_type.text, available=False))
                continue
            offset = int(item["offset"])
            chunk = memory[offset : offset + int(item.get("size", 0) or 0)]
            child = self._decode_bytes(report, field_type, item, chunk, field_name, f"{name}.{field_name}")
            children.append(child)
        text = (
            f"{numba_type.class_name.split('.')[-1]}("
            + ", ".join(f"{c.name}={c.value}" for c in children)
            + ")"
        )
        handle = ChildrenHandle("static", report.thread_id, report.frame_level, items=children)
        return JitVariable(
            name,
            text,
            numba_type.text,
            children=handle,
            named_count=len(children),
            raw={c.name: c for c in children},
            evaluate_name=name,
        )

    # --- recovered arguments -------------------------------------------------------------------------
    def _recover_argument(
        self, report: _FrameReport, raw: _RawVar, arg_names: list[str]
    ) -> JitVariable | None:
        args = report.entry_args
        if args is None or len(args) != len(arg_names) or raw.name not in arg_names:
            return None
        passed = args[arg_names.index(raw.name)]
        numba_type = raw.numba_type
        name = raw.base
        note = "value passed by the Python caller"
        try:
            scalar = _recover_scalar(numba_type, passed)
            if scalar is not None:
                text, value = scalar
                return JitVariable(name, text, numba_type.text, raw=value, evaluate_name=name, note=note)
            kind = numba_type.kind
            py_kind = passed.get("kind")
            if kind == "unicode" and py_kind == "str" and "value" in passed:
                text_value = str(passed["value"])
                return JitVariable(
                    name, repr(text_value), numba_type.text, raw=text_value, evaluate_name=name, note=note
                )
            if kind == "tuple" and py_kind == "tuple":
                items = passed.get("items") or []
                if len(items) != len(numba_type.members):
                    return None
                children = []
                for index, (member, item) in enumerate(zip(numba_type.members, items, strict=True)):
                    member_value = _recover_scalar(member, item)
                    if member_value is None:
                        return None
                    children.append(
                        JitVariable(
                            f"[{index}]",
                            member_value[0],
                            member.text,
                            raw=member_value[1],
                            evaluate_name=f"{name}[{index}]",
                        )
                    )
                return tuple_variable(name, numba_type, report, children, note=note)
            if kind == "array" and py_kind == "ndarray" and int(passed["nd"]) == numba_type.ndim:
                shape = tuple(int(s) for s in passed["shape"])
                strides = tuple(int(s) for s in passed["strides"])
                variable = self._array_variable(
                    report.thread_id,
                    report.frame_level,
                    name,
                    numba_type,
                    int(passed["data"]),
                    shape,
                    strides,
                )
                variable.note = note
                return variable
        except (KeyError, ValueError, TypeError):
            return None
        return None

    # --- children ------------------------------------------------------------------------------------
    def _array_children(self, handle: ChildrenHandle, start: int, count: int | None) -> list[JitVariable]:
        assert handle.dtype is not None
        length = handle.shape[0] if handle.shape else 0
        start = max(0, start)
        end = length if count is None else min(length, start + max(0, count))
        if count is None and end - start > DEFAULT_PAGE:
            end = start + DEFAULT_PAGE
        if start >= end:
            return []
        stride0 = handle.strides[0]
        base = handle.expression
        if len(handle.shape) > 1:
            row_layout = "C" if handle.layout == "C" else "A"
            row_ndim = len(handle.shape) - 1
            row_type = NumbaType(
                "array",
                f"array({handle.dtype.text}, {row_ndim}d, {row_layout})",
                dtype=handle.dtype,
                ndim=row_ndim,
                layout=row_layout,
            )
            rows = []
            for index in range(start, end):
                row = self._array_variable(
                    handle.thread_id,
                    handle.frame_level,
                    f"[{index}]",
                    row_type,
                    handle.data + index * stride0,
                    handle.shape[1:],
                    handle.strides[1:],
                    evaluate_name=f"{base}[{index}]",
                )
                if row_ndim == 1 and _is_scalar(handle.dtype) and handle.shape[1] <= PREVIEW_ITEMS:
                    items = self._array_children(row.raw, 0, None)
                    row.value = "[" + ", ".join(i.value for i in items) + "]"
                rows.append(row)
            return rows
        dtype = handle.dtype
        itemsize = _sizeof(dtype)
        if itemsize <= 0:
            raise JitValueError(f"cannot read elements of dtype {dtype.text}")
        addresses = [handle.data + index * stride0 for index in range(start, end)]
        low = min(addresses)
        high = max(addresses) + itemsize
        if high - low <= MAX_READ:
            block = self.read_memory(low, high - low)

            def element(address: int) -> bytes:
                return block[address - low : address - low + itemsize]

        else:

            def element(address: int) -> bytes:
                return self.read_memory(address, itemsize)

        out: list[JitVariable] = []
        for index, address in zip(range(start, end), addresses, strict=False):
            out.append(
                self._element_variable(
                    handle, dtype, element(address), f"[{index}]", f"{base}[{index}]", address
                )
            )
        return out

    def _element_variable(
        self, handle: ChildrenHandle, dtype: NumbaType, data: bytes, name: str, expression: str, address: int
    ) -> JitVariable:
        if _is_scalar(dtype):
            text, value = decode_scalar(dtype, data)
            return JitVariable(name, text, dtype.text, raw=value, evaluate_name=expression)
        if dtype.kind == "record":
            children = []
            for field_name, field_type, offset in zip(
                dtype.names, dtype.members, dtype.offsets, strict=False
            ):
                if _is_scalar(field_type):
                    text, value = decode_scalar(field_type, data[offset : offset + field_type.size])
                    children.append(
                        JitVariable(
                            field_name,
                            text,
                            field_type.text,
                            raw=value,
                            evaluate_name=f"{expression}.{field_name}",
                        )
                    )
                else:
                    children.append(
                        JitVariable(
                            field_name,
                            UNAVAILABLE,
                            field_type.text,
                            available=False,
                            note="type not supported",
                        )
                    )
            text = "(" + ", ".join(c.value for c in children) + ")"
            items_handle = ChildrenHandle("static", handle.thread_id, handle.frame_level, items=children)
            return JitVariable(
                name,
                text,
                dtype.text,
                children=items_handle,
                named_count=len(children),
                raw={c.name: c for c in children},
                evaluate_name=expression,
            )
        return JitVariable(name, UNAVAILABLE, dtype.text, available=False, note="dtype not supported")

    def _list_children(self, handle: ChildrenHandle, start: int, count: int | None) -> list[JitVariable]:
        assert handle.dtype is not None
        end = handle.count if count is None else min(handle.count, start + max(0, count))
        if count is None and end - start > DEFAULT_PAGE:
            end = start + DEFAULT_PAGE
        if start >= end:
            return []
        dtype = handle.dtype
        if (not _is_scalar(dtype) and dtype.kind != "unicode") or handle.item_size != _sizeof(dtype):
            return [
                JitVariable(
                    f"[{i}]", UNAVAILABLE, dtype.text, available=False, note="item type not supported"
                )
                for i in range(start, end)
            ]
        block = self.read_memory(handle.data + start * handle.item_size, (end - start) * handle.item_size)
        out = []
        for index in range(start, end):
            offset = (index - start) * handle.item_size
            if not _is_scalar(dtype):
                item = self._container_item(
                    handle, dtype, block[offset : offset + handle.item_size], f"[{index}]"
                )
                item.name, item.evaluate_name = f"[{index}]", f"{handle.expression}[{index}]"
                out.append(item)
                continue
            text, value = decode_scalar(dtype, block[offset : offset + handle.item_size])
            out.append(
                JitVariable(
                    f"[{index}]", text, dtype.text, raw=value, evaluate_name=f"{handle.expression}[{index}]"
                )
            )
        return out

    def _dict_children(self, handle: ChildrenHandle, start: int, count: int | None) -> list[JitVariable]:
        assert handle.dtype is not None and handle.key_type is not None
        if handle.count <= 0:
            return []
        total = min(handle.count, 100_000)
        block = self.read_memory(handle.data, total * handle.item_size)
        out: list[JitVariable] = []
        for index in range(total):
            entry = block[index * handle.item_size : (index + 1) * handle.item_size]
            if int.from_bytes(entry[:8], "little", signed=True) == -1:
                continue  # DKIX_EMPTY: a deleted entry
            key_bytes = entry[handle.key_offset : handle.key_offset + _sizeof(handle.key_type)]
            value_bytes = entry[handle.value_offset : handle.value_offset + _sizeof(handle.dtype)]
            key = self._container_item(handle, handle.key_type, key_bytes, "key")
            value = self._container_item(handle, handle.dtype, value_bytes, "value")
            label = key.value if key.available else f"<key {index}>"
            value.name = label
            value.evaluate_name = f"{handle.expression}[{label}]" if isinstance(key.raw, (int, str)) else None
            out.append(value)
        end = len(out) if count is None else start + count
        return out[start:end]

    def _container_item(
        self, handle: ChildrenHandle, numba_type: NumbaType, data: bytes, name: str
    ) -> JitVariable:
        if _is_scalar(numba_type):
            text, value = decode_scalar(numba_type, data)
            return JitVariable(name, text, numba_type.text, raw=value)
        if numba_type.kind == "unicode":
            layout = {
                "fields": [
                    {"name": "data", "offset": "0"},
                    {"name": "length", "offset": "8"},
                    {"name": "kind", "offset": "16"},
                ]
            }
            decoded = self._decode_unicode(data, layout, name)
            if decoded is not None:
                return decoded
        return JitVariable(name, UNAVAILABLE, numba_type.text, available=False, note="type not supported")

    # --- REPL pass-through ---------------------------------------------------------------------------
    def _gdb_evaluate(self, thread_id: int, frame_level: int, expression: str) -> JitVariable:
        try:
            payload = self.gdb.execute(
                f"-data-evaluate-expression --thread {int(thread_id)} --frame {int(frame_level)} "
                f"{_mi_quote(expression)}"
            )
        except GdbCommandError as exc:
            raise JitValueError(exc.message) from None
        finally:
            # A gdb expression may call functions or assign: cached values may be stale now.
            self.invalidate()
        return JitVariable(
            expression, str(payload.get("value", "")), "", note="gdb expression (raw gdb value)"
        )


def _recover_scalar(numba_type: NumbaType, passed: dict[str, Any]) -> tuple[str, Any] | None:
    """(text, value) of a Python scalar the caller passed, converted as Numba's unboxing would for
    this parameter type; None when the pair is not one of the plain conversions."""
    kind = numba_type.kind
    py_kind = passed.get("kind")
    if "value" not in passed:
        return None
    if kind in ("int", "uint") and py_kind in ("int", "bool"):
        number = int(passed["value"] == "True") if py_kind == "bool" else int(passed["value"])
        return str(number), number
    if kind == "float" and py_kind in ("int", "float"):
        number_f = float(passed["value"])
        if numba_type.size == 4:
            number_f = struct.unpack("<f", struct.pack("<f", number_f))[0]
        return _format_float(number_f, numba_type.size), number_f
    if kind == "bool" and py_kind == "bool":
        flag = passed["value"] == "True"
        return str(flag), flag
    if kind == "complex" and py_kind in ("complex", "float", "int"):
        if py_kind == "complex":
            number_c = complex(float(passed["real"]), float(passed["imag"]))
        else:
            number_c = complex(float(passed["value"]))
        if numba_type.size == 8:
            real, imag = struct.unpack("<ff", struct.pack("<ff", number_c.real, number_c.imag))
            number_c = complex(real, imag)
        return _format_complex(number_c, numba_type.size), number_c
    return None


def _aligned(size: int) -> int:
    return size + (8 - size % 8) % 8


def _sizeof(numba_type: NumbaType) -> int:
    """Bytes of a value of this type as stored in arrays and containers (Numba's data model)."""
    if _is_scalar(numba_type) or numba_type.kind in ("record", "unicode"):
        return numba_type.size
    return 0


# ----------------------------------------------------------------------------------------------------
# Side-effect-free expressions
# ----------------------------------------------------------------------------------------------------


class _NotInSubset(Exception):
    """The expression uses something the safe evaluator does not do (calls, assignments, ...)."""


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_COMPARES: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def tuple_variable(
    name: str,
    numba_type: NumbaType,
    report: _FrameReport,
    children: list[JitVariable],
    *,
    note: str = "",
) -> JitVariable:
    """A tuple (or named tuple) shown as Python prints it, expanding to its members."""
    text = "(" + ", ".join(c.value for c in children) + ("," if len(children) == 1 else "") + ")"
    if numba_type.class_name:
        text = f"{numba_type.class_name}{text}"
    handle = ChildrenHandle("static", report.thread_id, report.frame_level, items=children)
    return JitVariable(
        name,
        text,
        numba_type.text,
        children=handle if children else None,
        named_count=len(children),
        raw=children,
        evaluate_name=name,
        note=note,
    )


def _scalar_variable(expression: str, value: Any) -> JitVariable:
    if isinstance(value, bool):
        return JitVariable(expression, str(value), "bool", raw=value, evaluate_name=expression)
    if isinstance(value, int):
        return JitVariable(expression, str(value), "int64", raw=value, evaluate_name=expression)
    if isinstance(value, float):
        return JitVariable(expression, _format_float(value), "float64", raw=value, evaluate_name=expression)
    if isinstance(value, complex):
        return JitVariable(
            expression, _format_complex(value), "complex128", raw=value, evaluate_name=expression
        )
    if isinstance(value, str):
        return JitVariable(expression, repr(value), "unicode_type", raw=value, evaluate_name=expression)
    raise _NotInSubset(f"cannot show a value of type {type(value).__name__}")


class _Evaluator:
    def __init__(
        self,
        reader: JitValueReader,
        thread_id: int,
        frame_level: int,
        names: dict[str, JitVariable],
        expression: str,
    ) -> None:
        self.reader = reader
        self.thread_id = thread_id
        self.frame_level = frame_level
        self.names = names
        self.expression = expression

    def run(self, tree: ast.Expression) -> JitVariable:
        result = self.node(tree.body)
        if isinstance(result, JitVariable):
            if not result.available:
                raise JitValueError(f"{self.expression}: unavailable ({result.note or 'not readable here'})")
            out = JitVariable(**{**result.__dict__})
            out.name = self.expression
            return out
        return _scalar_variable(self.expression, result)

    def value(self, node: ast.AST) -> Any:
        result = self.node(node)
        if isinstance(result, JitVariable):
            if not result.available:
                raise JitValueError(
                    f"{ast.unparse(node)} is unavailable ({result.note or 'not readable here'})"
                )
            if result.raw is None or isinstance(result.raw, (ChildrenHandle, list, dict)):
                raise JitValueError(f"{ast.unparse(node)} is not a number")
            return result.raw
        return result

    def node(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex, bool, str)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            if node.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.id]
            raise _NotInSubset(f"name {node.id!r} is not a variable of this frame")
        if isinstance(node, ast.UnaryOp):
            operand = self.value(node.operand)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return +operand
            if isinstance(node.op, ast.Not):
                return not operand
            raise _NotInSubset("operator not supported")
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise _NotInSubset("operator not supported")
            try:
                return op(self.value(node.left), self.value(node.right))
            except (ArithmeticError, TypeError) as exc:
                raise JitValueError(f"{self.expression}: {exc}") from None
        if isinstance(node, ast.Compare):
            left = self.value(node.left)
            for op_node, right_node in zip(node.ops, node.comparators, strict=False):
                compare = _COMPARES.get(type(op_node))
                if compare is None:
                    raise _NotInSubset("comparison not supported")
                right = self.value(right_node)
                try:
                    if not compare(left, right):
                        return False
                except TypeError as exc:
                    raise JitValueError(f"{self.expression}: {exc}") from None
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            values = [self.value(v) for v in node.values]
            if isinstance(node.op, ast.And):
                return all(values)
            return any(values)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, (ast.Call, ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom)):
            raise _NotInSubset("calls and assignments are not evaluated in watch or hover expressions")
        raise _NotInSubset(f"{type(node).__name__} expressions are not supported")

    def _index(self, node: ast.AST) -> list[int]:
        if isinstance(node, ast.Tuple):
            return [self._one_index(element) for element in node.elts]
        return [self._one_index(node)]

    def _one_index(self, node: ast.AST) -> int:
        if isinstance(node, ast.Slice):
            raise _NotInSubset("slices are not supported")
        value = self.value(node)
        if isinstance(value, bool) or not isinstance(value, int):
            raise JitValueError(f"index {ast.unparse(node)} is not an integer")
        return value

    def subscript(self, node: ast.Subscript) -> Any:
        target = self.node(node.value)
        indices = self._index(node.slice)
        for index in indices:
            if not isinstance(target, JitVariable):
                raise JitValueError(f"{ast.unparse(node.value)} cannot be indexed")
            if not target.available:
                raise JitValueError(f"{ast.unparse(node.value)} is unavailable ({target.note})")
            handle = target.raw
            if isinstance(handle, ChildrenHandle) and handle.kind in ("array", "list"):
                length = handle.shape[0] if handle.kind == "array" else handle.count
                real = index + length if index < 0 else index
                if not 0 <= real < length:
                    raise JitValueError(f"index {index} is out of bounds for length {length}")
                target = self.reader.children(handle, real, 1)[0]
            elif isinstance(handle, list):
                if not -len(handle) <= index < len(handle):
                    raise JitValueError(f"index {index} is out of range")
                target = handle[index]
            else:
                raise JitValueError(f"{ast.unparse(node.value)} cannot be indexed")
        return target

    def attribute(self, node: ast.Attribute) -> Any:
        target = self.node(node.value)
        attr = node.attr
        if not isinstance(target, JitVariable):
            if isinstance(target, complex) and attr in ("real", "imag"):
                return getattr(target, attr)
            raise _NotInSubset(f"attribute {attr} not supported")
        if not target.available:
            raise JitValueError(f"{ast.unparse(node.value)} is unavailable ({target.note})")
        raw = target.raw
        if isinstance(raw, ChildrenHandle) and raw.kind == "array":
            if attr == "shape":
                return JitVariable(
                    f"{target.name}.shape",
                    "(" + ", ".join(map(str, raw.shape)) + ("," if len(raw.shape) == 1 else "") + ")",
                    f"UniTuple(int64 x {len(raw.shape)})",
                    raw=[_scalar_variable(f"[{i}]", s) for i, s in enumerate(raw.shape)],
                )
            if attr == "ndim":
                return len(raw.shape)
            if attr == "size":
                return math.prod(raw.shape)
            if attr == "strides":
                return JitVariable(
                    f"{target.name}.strides",
                    "(" + ", ".join(map(str, raw.strides)) + ("," if len(raw.strides) == 1 else "") + ")",
                    f"UniTuple(int64 x {len(raw.strides)})",
                    raw=[_scalar_variable(f"[{i}]", s) for i, s in enumerate(raw.strides)],
                )
        if isinstance(raw, dict) and attr in raw:
            return raw[attr]
        if isinstance(raw, complex) and attr in ("real", "imag"):
            return getattr(raw, attr)
        raise JitValueError(f"{target.type or target.name} has no attribute {attr!r} here")


__all__ = [
    "ChildrenHandle",
    "JitValueError",
    "JitValueReader",
    "JitVariable",
    "NumbaType",
    "Scope",
    "decode_scalar",
    "parse_numba_type",
    "strip_llvm_suffix",
]
