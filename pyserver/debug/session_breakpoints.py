"""Breakpoints: line, function, conditional, hit-count and log breakpoints, routed to gdb (jitted lines) or debugpy (Python lines). A part of the Session class (session.py)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyserver.debug.dap import DapError, Message
from pyserver.debug.gdb.mi import breakpoint as mi_breakpoint
from pyserver.debug.gdb.mi.breakpoint import MIBreakpoint
from pyserver.debug.gdb.mi_protocol import GdbCommandError
from pyserver.debug.jit.entry_stop import FirstStatementStop, same_file
from pyserver.debug.session_common import (
    DEBUGPY_REPLY_TIMEOUT_S,
    GdbBreakpoint,
    SourceBreakpoints,
    prange_body_lines,
)

if TYPE_CHECKING:
    from pyserver.debug.session import Session


# --- breakpoints ---------------------------------------------------------------------------------
def _jitted_functions(self: Session, path: str) -> list[Any]:
    if self.mode != "mixed":
        return []
    try:
        from pyserver.analysis.api import OVERLOAD_KINDS, find_jitted_functions

        functions = find_jitted_functions(Path(path).read_text(encoding="utf-8"), path)
    except (OSError, SyntaxError, UnicodeDecodeError, ImportError) as exc:
        self.log(f"no jitted functions from {path}: {exc}")
        return []
    # An @overload's decorated function runs in Python, while Numba types a call: its lines stay debugpy's.
    return [f for f in functions if f.kind not in OVERLOAD_KINDS]


def on_set_breakpoints(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    source = args.get("source") or {}
    path = str(source.get("path") or "")
    requested = list(args.get("breakpoints") or [{"line": line} for line in args.get("lines") or []])
    functions = self._jitted_functions(path) if path else []

    def in_jit(line: int) -> bool:
        return any(f.def_line <= line <= f.end_line for f in functions)

    state = self.sources.setdefault(path, SourceBreakpoints())
    results: list[dict[str, Any] | None] = [None] * len(requested)
    # gdb side: replace this source's breakpoints.
    if self.gdb is not None:
        for old in state.gdb:
            self._delete_gdb_breakpoint(old.number)
        state.gdb = []
    prange_lines = prange_body_lines(path, functions)
    for index, bp in enumerate(requested):
        line = int(bp.get("line", 0))
        if self.gdb is not None and line in prange_lines:
            # The body runs in a separate gufunc whose debug info names the file "<string>" (with the
            # user's line numbers): break there, not at the outer function's nearest line.
            self.parfor_sources[path] = prange_lines[line]
            results[index] = self._insert_line_breakpoint(path, bp, state, gdb_file="<string>")
        elif self.gdb is not None and in_jit(line):
            results[index] = self._insert_line_breakpoint(path, bp, state)
    # debugpy side: everything else, in one request for the whole source.
    python_indexes = [i for i, r in enumerate(results) if r is None]
    if self.debugpy is not None or python_indexes:
        python_bps = [requested[i] for i in python_indexes]
        placeholders = self._set_python_breakpoints(source, python_bps, state)
        for i, result in zip(python_indexes, placeholders, strict=True):
            results[i] = result
    return {"breakpoints": results}


def _parse_hit_condition(hit_condition: str | None) -> tuple[str, int]:
    """`N` or `==N` (stop once, at the N-th hit, as debugpy does), `>=N`, `>N`, `%N`."""
    if not hit_condition or not hit_condition.strip():
        return "", 0
    match = re.fullmatch(r"\s*(==|>=|>|%)?\s*(\d+)\s*", hit_condition)
    if not match or int(match.group(2)) < 1:
        raise DapError(
            f"Hit count '{hit_condition}' in jitted code: use N or ==N (the N-th hit), >=N, >N or %N."
        )
    return match.group(1) or "==", int(match.group(2))


def _ignore_count(mode: str, n: int) -> int:
    """gdb's ignore count for a hit condition (%N is counted by the adapter)."""
    return {"==": n - 1, ">=": n - 1, ">": n}.get(mode, 0)


def _insert_line_breakpoint(
    self, path: str, bp: dict[str, Any], state: SourceBreakpoints, *, gdb_file: str | None = None
) -> dict[str, Any]:
    assert self.gdb is not None
    line = int(bp["line"])
    try:
        hit_mode, hit_n = self._parse_hit_condition(bp.get("hitCondition"))
    except DapError as exc:
        return {"id": self.new_id(), "verified": False, "line": line, "message": str(exc)}
    try:
        inserted = mi_breakpoint.break_insert(
            self.gdb,
            f"{path}:{line}" if gdb_file is None else None,
            source=gdb_file,
            line=line,
            allow_pending=True,
            condition=str(bp["condition"]) if bp.get("condition") else None,
            ignore_count=self._ignore_count(hit_mode, hit_n),
        )
    except GdbCommandError as exc:
        return {"id": self.new_id(), "verified": False, "line": line, "message": exc.message}
    created = GdbBreakpoint(self.new_id(), inserted.number, path, line, bp.get("logMessage"))
    created.hit_mode, created.hit_n = hit_mode, hit_n
    created.condition = str(bp["condition"]) if bp.get("condition") else None
    created.parfor_only = gdb_file is not None
    state.gdb.append(created)
    with self._lock:
        self.gdb_bps[created.number] = created
    if self._loop_headers is not None:
        # Set again on a loop header whose code gdb already runs: its addresses are known (the hit of
        # gdb's own address that finds them may never come again, e.g. inside the loop).
        self._insert_loop_header_twins(created, self._loop_headers.known_addresses(path, line))
    return self._gdb_bp_to_dap(created, inserted)


def _gdb_bp_to_dap(self: Session, bp: GdbBreakpoint, reported: MIBreakpoint) -> dict[str, Any]:
    pending = reported.pending
    line = reported.line if reported.line is not None else bp.line
    bp.verified = not pending
    result: dict[str, Any] = {"id": bp.dap_id, "verified": bp.verified}
    if bp.path:
        result["source"] = {"path": bp.path, "name": os.path.basename(bp.path)}
        result["line"] = line
    if pending:
        what = bp.function or "this function"
        result["message"] = f"Pending: set when Numba compiles {what} (gdb)"
        result["reason"] = "pending"
    return result


def _delete_gdb_breakpoint(self: Session, number: str) -> None:
    assert self.gdb is not None
    with self._lock:
        self.gdb_bps.pop(number, None)
        self._deleted_gdb_bps.add(number)
    try:
        mi_breakpoint.break_delete(self.gdb, number)
    except GdbCommandError as exc:
        self.log(f"delete gdb breakpoint {number}: {exc.message}")


def _first_statement_stop_in(
    self: Session, path: str, bps: list[dict[str, Any]]
) -> FirstStatementStop | None:
    """The pending first-statement stop to send with this source's breakpoints, if any."""
    stop = self._first_statement_stop
    return stop if stop is not None and stop.pending_in(path, bps) else None


def _set_python_breakpoints(
    self, source: dict[str, Any], bps: list[dict[str, Any]], state: SourceBreakpoints
) -> list[dict[str, Any]]:
    our_ids = [self.new_id() for _ in bps]
    with self._lock:
        state.python_requested = list(bps)
    placeholders = [
        {
            "id": our_id,
            "verified": False,
            "line": int(bp.get("line", 0)),
            "message": "Waiting for debugpy",
        }
        for our_id, bp in zip(our_ids, bps, strict=True)
    ]
    if self.debugpy is None:
        return placeholders
    first_statement_stop = self._first_statement_stop_in(str(source.get("path") or ""), bps)
    sent = bps + ([first_statement_stop.as_breakpoint()] if first_statement_stop is not None else [])
    sent_ids = our_ids + ([first_statement_stop.dap_id] if first_statement_stop is not None else [])
    reply = self.debugpy.request("setBreakpoints", {"source": source, "breakpoints": sent})

    def translate(response: Message) -> list[dict[str, Any]]:
        out = []
        their = (response.get("body") or {}).get("breakpoints") or []
        with self._lock:
            state.debugpy_ids = {}
            for index, (our_id, theirs) in enumerate(zip(sent_ids, their, strict=False)):
                item = dict(theirs)
                if "id" in theirs:
                    state.debugpy_ids[int(theirs["id"])] = our_id
                if index >= len(bps):
                    continue  # the first-statement stop: not the editor's
                item["id"] = our_id
                item.setdefault("line", placeholders[index]["line"])
                out.append(item)
        return out

    held_by_gdb = self.owner == "gdb"
    if not held_by_gdb:
        response = reply.wait(self._debugpy_patience())
        if response is not None and response.get("success"):
            translated = translate(response)
            if len(translated) == len(bps):
                return translated

    # debugpy cannot answer now (gdb holds the process): tell the editor when it does.
    def later(response: Message) -> None:
        if response.get("success"):
            for item in translate(response):
                self.stream.event("breakpoint", {"reason": "changed", "breakpoint": item})

    reply.then(later)
    if held_by_gdb:
        with self._lock:
            self._debugpy_backlog.append(reply)
    for placeholder in placeholders:
        placeholder["message"] = (
            "Set when the program resumes (gdb holds it now)"
            if held_by_gdb
            else "Set when debugpy can answer (the program is in native code that holds the GIL)"
        )
    return placeholders


def _send_first_statement_stop(self: Session) -> None:
    """Before configurationDone: the first-statement stop goes to debugpy even if the editor has no breakpoint
    in the kernel's file."""
    stop = self._first_statement_stop
    if stop is None or self.debugpy is None:
        return
    with self._lock:
        already = any(
            same_file(path, stop.path) and state.python_requested is not None
            for path, state in self.sources.items()
        )
    if not already:
        state = self.sources.setdefault(stop.path, SourceBreakpoints())
        self._set_python_breakpoints({"path": stop.path, "name": os.path.basename(stop.path)}, [], state)


def _debugpy_patience(self: Session) -> float:
    """How long a request may wait for debugpy. While the program runs in mixed mode, a thread in
    jitted code may hold the GIL for minutes: answer the editor soon and update it later."""
    if self.owner == "debugpy" or self.gdb is None:
        return DEBUGPY_REPLY_TIMEOUT_S
    return 2.0


def on_set_function_breakpoints(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    if self.gdb is None:
        return {"breakpoints": self._set_debugpy_function_breakpoints(list(args.get("breakpoints") or []))}
    for old in self.function_bps:
        self._delete_gdb_breakpoint(old.number)
    self.function_bps = []
    results = []
    for bp in args.get("breakpoints") or []:
        try:
            created, inserted = self._insert_function_breakpoint(bp)
        except (GdbCommandError, DapError) as exc:
            message = exc.message if isinstance(exc, GdbCommandError) else str(exc)
            results.append({"id": self.new_id(), "verified": False, "message": message})
            continue
        self.function_bps.append(created)
        results.append(self._gdb_bp_to_dap(created, inserted))
    return {"breakpoints": results}


def _set_debugpy_function_breakpoints(self: Session, bps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Modes python and cudasim: jitted functions run as Python, so debugpy's function breakpoints
    (matched on the function's name) stop in them. VS Code sends this request, often empty, at every
    start: it never fails as a whole."""
    if not bps and self.debugpy is None:
        return []
    our_ids = [self.new_id() for _ in bps]
    sent = [{**bp, "name": str(bp.get("name", "")).split("::")[-1].split(".")[-1]} for bp in bps]
    response = None
    if self.debugpy is not None:
        response = self.debugpy.request("setFunctionBreakpoints", {"breakpoints": sent}).wait(
            self._debugpy_patience()
        )
    if response is None or not response.get("success"):
        reason = (response or {}).get("message") or "debugpy did not answer"
        return [
            {"id": our_id, "verified": False, "message": f"Function breakpoint not set: {reason}"}
            for our_id in our_ids
        ]
    theirs = (response.get("body") or {}).get("breakpoints") or []
    results = []
    with self._lock:
        self._debugpy_function_ids = {}
        for our_id, their in zip(our_ids, theirs, strict=False):
            if "id" in their:
                self._debugpy_function_ids[int(their["id"])] = our_id
            results.append({**their, "id": our_id})
    return results


def _insert_function_breakpoint(
    self: Session, bp: dict[str, Any], *, temporary: bool = False
) -> tuple[GdbBreakpoint, MIBreakpoint]:
    """A breakpoint on a jitted function (pending until Numba compiles it): ours and gdb's record."""
    assert self.gdb is not None
    name = str(bp.get("name", "")).strip()
    if not name:
        raise DapError("A function breakpoint needs the jitted function's name, e.g. walk or __main__::walk.")
    qualified = (
        name
        if "::" in name
        else "::".join(["__main__", *name.split(".")])
        if "." not in name
        else (name.replace(".", "::"))
    )
    hit_mode, hit_n = self._parse_hit_condition(bp.get("hitCondition"))
    inserted = mi_breakpoint.break_insert(
        self.gdb,
        qualified,
        temporary=temporary,
        allow_pending=True,
        qualified=True,
        condition=str(bp["condition"]) if bp.get("condition") else None,
        ignore_count=self._ignore_count(hit_mode, hit_n),
    )
    created = GdbBreakpoint(self.new_id(), inserted.number, "", 0, None, name, temporary=temporary)
    created.hit_mode, created.hit_n = hit_mode, hit_n
    with self._lock:
        self.gdb_bps[created.number] = created
    return created, inserted
