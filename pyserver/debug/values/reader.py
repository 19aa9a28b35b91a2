"""Variables of jitted frames: Numba's data model read through gdb, turned into DAP-shaped values.

What gdb's own printing gets wrong here (measured):
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

The reading itself is one gdb-side MI command (pyserver/debug/gdb/inside/values_gdb.py,
`-numba-lens-frame`) plus `-data-read-memory-bytes` for array elements, strings and containers
(decoding.py, containers.py).
"""

from __future__ import annotations

import ast
import re
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass

from pyserver.debug.gdb.inside import VALUES_SCRIPT
from pyserver.debug.gdb.mi import console as mi_console
from pyserver.debug.gdb.mi import data as mi_data
from pyserver.debug.gdb.mi import numba_lens as mi_numba_lens
from pyserver.debug.gdb.mi_protocol import GdbCommandError, MIExecutor
from pyserver.debug.values.arguments import recover_argument
from pyserver.debug.values.containers import ContainerReader
from pyserver.debug.values.decoding import InferiorMemory, ValueDecoder
from pyserver.debug.values.expressions import Evaluator, NotInSubset
from pyserver.debug.values.live_versions import LiveVersions, function_name
from pyserver.debug.values.model import UNAVAILABLE, ChildrenHandle, JitValueError, JitVariable, Scope
from pyserver.debug.values.numba_types import NumbaType, decode_scalar, is_scalar, parse_numba_type
from pyserver.debug.values.records import record_pointer_size, record_type
from pyserver.debug.values.report import FrameReport, RawVar, SourceIndex, raw_var, source_index


@dataclass(frozen=True)
class ObjectPlace:
    """The place of a value held by Python code: its thread; no jitted frame (level -1)."""

    thread_id: int
    frame_level: int


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
        self._memory = InferiorMemory(gdb)
        self._decoder = ValueDecoder(self._memory, self._log)
        self._containers = ContainerReader(self._memory, self._decoder)
        self._helper_loaded = False
        self._helper_error = ""
        self._lock = threading.RLock()
        self._reports: dict[tuple[int, int], FrameReport] = {}
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
                return self._containers.array_children(handle, start, count)
            if handle.kind == "list":
                return self._containers.list_children(handle, start, count)
            if handle.kind == "dict":
                return self._containers.dict_children(handle, start, count)
            raise JitValueError(f"unknown children handle {handle.kind!r}")

    def typed_container(self, thread_id: int, type_text: str, address: int, name: str) -> JitVariable:
        """A numba.typed List or Dict held by Python code: `type_text` is its Numba type's name,
        `address` its NB_List or NB_Dict; decoded as a jitted frame's (items checked against the
        type's sizes, an item type not decoded shown unavailable)."""
        numba_type = parse_numba_type(type_text)
        place = ObjectPlace(thread_id, -1)
        with self._lock:
            if numba_type.kind == "list" and numba_type.members[0].kind != "unknown":
                return self._containers.decode_list(place, numba_type, address, name)
            if numba_type.kind == "dict" and all(m.kind != "unknown" for m in numba_type.members):
                return self._containers.decode_dict(place, numba_type, address, name)
        raise JitValueError(f"element type unknown ({type_text})")

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
                    return Evaluator(self, thread_id, frame_level, names, expression).run(tree)
                except NotInSubset as exc:
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
            mi_console.interpreter_exec_console(self.gdb, f"source {VALUES_SCRIPT}")
            self._helper_loaded = True
        except GdbCommandError as exc:
            self._helper_error = f"cannot load the value reader into gdb (gdb 13+ with Python needed): {exc}"
            raise JitValueError(self._helper_error) from None

    def _report(self, thread_id: int, frame_level: int) -> FrameReport:
        key = (thread_id, frame_level)
        if key in self._reports:
            return self._reports[key]
        self._ensure_helper()
        try:
            payload = mi_numba_lens.numba_lens_frame(self.gdb, thread_id, frame_level, timeout=20.0)
        except GdbCommandError as exc:
            raise JitValueError(
                f"cannot read frame {frame_level} of thread {thread_id}: {exc.message}"
            ) from None
        entry_args = payload.get("entry_args")
        report = FrameReport(
            thread_id=thread_id,
            frame_level=frame_level,
            pc=int(payload.get("pc", 0) or 0),
            line=int(payload.get("line", 0) or 0),
            file=str(payload.get("file", "")),
            function=str(payload.get("function", "")),
            variables=[raw_var(item) for item in payload.get("vars", []) or []],
            entry_args=list(entry_args) if isinstance(entry_args, list) else None,
            entry_note=str(payload.get("entry_note", "")),
            at_line_start=payload.get("line_start") == "1",
            pid=int(payload.get("pid", 0) or 0),
        )
        self._reports[key] = report
        return report

    # --- scopes --------------------------------------------------------------------------------------
    def _build_scopes(self, report: FrameReport) -> list[Scope]:
        groups: dict[str, list[RawVar]] = {}
        order: list[str] = []
        for raw in report.variables:
            if raw.base not in groups:
                groups[raw.base] = []
                order.append(raw.base)
            groups[raw.base].append(raw)
        arg_names = [raw.name for raw in report.variables if raw.is_arg]
        arguments: list[JitVariable] = []
        local_vars: list[JitVariable] = []
        source = source_index(report.file) if report.file else None
        for base in order:
            if all(record_pointer_size(raw) for raw in groups[base]):
                record = record_type(report, base, groups, source)
                if record is None and any(raw.is_arg for raw in groups[base]):
                    record = self._record_argument_type(report, base, groups[base])
                for raw in groups[base]:
                    if record is not None and record_pointer_size(raw) == record.size:
                        raw.numba_type = record
        own_names = (
            source.function_names(function_name(report.function))
            if source is not None and report.function
            else None
        )
        for base in order:
            if own_names is not None and base not in own_names:
                continue  # Numba's own variable: the Python function has none of that name
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
        report: FrameReport,
        base: str,
        versions: list[RawVar],
        arg_names: list[str],
        source: SourceIndex | None,
    ) -> JitVariable:
        # The type to show when no version is readable: a plain type rather than a literal one.
        plain = [v for v in versions if not v.numba_type.text.startswith("Literal[")]
        type_text = (plain or versions)[-1].numba_type.text
        # An argument never reassigned: what Python passed is its value for the whole call.
        arg = next((v for v in versions if v.is_arg), None)
        if arg is not None and len(versions) == 1:
            recovered = recover_argument(self._decoder, report, arg, arg_names)
            if recovered is not None:
                return recovered
        live = self._live_version(report, base, versions, source)
        if live is not None:
            return live
        candidates: list[tuple[RawVar, JitVariable]] = []
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
        elif all(record_pointer_size(v) for v in versions) and base in report.record_notes:
            note = (
                f"Numba's debug info types it only as a pointer to {record_pointer_size(versions[0])} "
                f"bytes (a record argument), and its record type is not known: {report.record_notes[base]}"
            )
        elif arg is not None and report.entry_args is None and report.entry_note:
            note = (
                f"not readable here (Numba's debug info reads 0 once a variable is dead; {report.entry_note})"
            )
        elif zero_seen:
            note = "not live here (reads 0, which Numba also writes when a variable dies)"
        elif all(record_pointer_size(v) for v in versions):
            note = (
                f"Numba's debug info types it only as a pointer to {record_pointer_size(versions[0])} "
                "bytes (a record), and no array of this frame it is surely taken from gives the fields"
            )
        else:
            note = "optimized out or not yet assigned"
        return JitVariable(
            name=base, value=UNAVAILABLE, type=type_text, available=False, note=note, evaluate_name=base
        )

    def _record_argument_type(
        self, report: FrameReport, base: str, versions: list[RawVar]
    ) -> NumbaType | None:
        """The record type of an argument DWARF types only as a pointer to N bytes, from the record
        types the debuggee exported while compiling (record_arguments.py), when it is exact; else None,
        with the reason in report.record_notes."""
        why = ""
        if len(versions) != 1 or versions[0].name != base:
            # Its other versions would stay untyped: which one is live could not be told.
            why = "the function assigns it again"
        elif self.live_versions is None:
            why = "the debuggee did not export its compiled signatures (attached, not launched)"
        elif not report.pid or not report.file:
            why = "the frame has no process id or source file"
        if why:
            report.record_notes[base] = why
            return None
        assert self.live_versions is not None
        record, why = self.live_versions.record_argument(
            report.pid, report.file, report.function, base, record_pointer_size(versions[0])
        )
        if record is None:
            report.record_notes[base] = why
        return record

    def _live_version(
        self, report: FrameReport, base: str, versions: list[RawVar], source: SourceIndex | None
    ) -> JitVariable | None:
        """The variable as Numba's IR says it is where this line starts (live_versions.py): the SSA
        version holding it, and a 0 trusted when no `del` can have written it. With several candidate
        versions, a value only when they all hold it. None: no word from the IR, or a value this rule
        cannot read (the caller's rules then decide)."""
        if self.live_versions is None or not report.file or report.frame_level != 0:
            return None  # a caller frame stands inside its line (a call), not where the line starts
        if not report.at_line_start and (source is None or source.mentions(report.line, base)):
            # Frame 0 after a Step Out or a pause stands inside its line: what the line's earlier
            # statements did to a variable it names (a new version, a `del` after a last use) is not
            # in the state at the line's start. A variable the line does not name keeps that state.
            return None
        candidates = self.live_versions.lookup(report.file, report.function, report.line, base)
        if not candidates:
            return None
        by_name = {v.name: v for v in versions if not v.error}
        decoded: list[tuple[RawVar, JitVariable]] = []
        for live in candidates:
            raw = by_name.get(live.version)
            if raw is None:
                return None
            numba_type = raw.numba_type
            if raw.is_zero() and is_scalar(numba_type) and raw.bytes_known(0, numba_type.size):
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
        if len(decoded) > 1 and not all(is_scalar(r.numba_type) for r, _ in decoded):
            return None  # equal texts of arrays or records need not be equal values
        if len({(d.value, d.type) for _, d in decoded}) != 1:
            return None
        raw, variable = decoded[0]
        if len(versions) > 1:
            names = ", ".join(r.name for r, _ in decoded)
            variable.note = f"live SSA version: {names} (Numba's IR)"
        return variable

    # --- decoding one variable -----------------------------------------------------------------------
    def _decode_var(self, report: FrameReport, raw: RawVar, name: str) -> JitVariable | None:
        """The variable if its bytes are readable and not Numba's zero "dead" marker, else None."""
        numba_type = raw.numba_type
        kind = numba_type.kind
        try:
            if is_scalar(numba_type):
                if not raw.bytes_known(0, numba_type.size) or raw.is_zero():
                    return None
                text, value = decode_scalar(numba_type, raw.data)
                return JitVariable(name, text, numba_type.text, raw=value, evaluate_name=name)
            if kind == "array":
                return self._decoder.decode_array_struct(report, raw, name)
            if kind == "tuple":
                if not raw.all_known() or raw.is_zero():
                    return None
                return self._decoder.decode_tuple(report, numba_type, raw.layout, raw.data, name)
            if kind == "unicode":
                if not raw.all_known() or raw.is_zero():
                    return None
                return self._decoder.decode_unicode(raw.data, raw.layout, name)
            if kind in ("list", "dict", "jitclass"):
                data_field = raw.field("data")
                if data_field is None or not raw.bytes_known(data_field[0], 8) or raw.is_zero():
                    return None
                pointer = int.from_bytes(raw.data[data_field[0] : data_field[0] + 8], "little")
                if pointer == 0:
                    return None
                if kind == "list":
                    return self._containers.decode_list(report, numba_type, pointer, name)
                if kind == "dict":
                    return self._containers.decode_dict(report, numba_type, pointer, name)
                return self._containers.decode_jitclass(report, numba_type, raw.layout, pointer, name)
            if kind == "record":
                # A record scalar is a pointer to its bytes (Numba's RecordModel), e.g. into the array
                # it was taken from; its type was found by record_type.
                if not raw.bytes_known(0, 8) or raw.is_zero() or raw.layout.get("code") != "ptr":
                    return None
                pointer = int.from_bytes(raw.data[:8], "little")
                handle = ChildrenHandle("static", report.thread_id, report.frame_level)
                data = self._memory.read_memory(pointer, numba_type.size)
                return self._containers.element_variable(handle, numba_type, data, name, name, pointer)
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

    # --- REPL pass-through ---------------------------------------------------------------------------
    def _gdb_evaluate(self, thread_id: int, frame_level: int, expression: str) -> JitVariable:
        try:
            value = mi_data.data_evaluate_expression(
                self.gdb, expression, thread=int(thread_id), frame=int(frame_level)
            )
        except GdbCommandError as exc:
            raise JitValueError(exc.message) from None
        finally:
            # A gdb expression may call functions or assign: cached values may be stale now.
            self.invalidate()
        return JitVariable(expression, value, "", note="gdb expression (raw gdb value)")
