"""Breakpoint routing: a source's lines in jitted functions go to gdb (a prange body to its gufunc), the
others to debugpy, in one request per source; function breakpoints go to gdb when it is there, else to
debugpy. Ours ids are translated to and from debugpy's."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyserver.debug.jit.entry_stop import FirstStatementStop, same_file
from pyserver.debug.session.common import LineBreakpoint, SourceBreakpoints, prange_body_lines

if TYPE_CHECKING:
    from pyserver.debug.session.session import Session


def jitted_functions(path: str, log: Any) -> list[Any]:
    """The jitted functions of a source file, as the analysis finds them (no import, nothing run)."""
    try:
        from pyserver.analysis.api import OVERLOAD_KINDS, find_jitted_functions

        functions = find_jitted_functions(Path(path).read_text(encoding="utf-8"), path)
    except (OSError, SyntaxError, UnicodeDecodeError, ImportError) as exc:
        log(f"no jitted functions from {path}: {exc}")
        return []
    # An @overload's decorated function runs in Python, while Numba types a call: its lines stay debugpy's.
    return [f for f in functions if f.kind not in OVERLOAD_KINDS]


class BreakpointRouter:
    def __init__(self, session: Session) -> None:
        self._session = session
        self._lock = session.lock
        self._sources: dict[str, SourceBreakpoints] = {}
        self._python_function_ids: dict[int, int] = {}  # debugpy's function breakpoint id -> ours
        self._parfor_sources: dict[str, str] = {}  # user file with prange breakpoints -> its function
        # stopAtJitFunction in modes python and cudasim (set by the launch).
        self.first_statement_stop: FirstStatementStop | None = None

    def source(self, path: str) -> SourceBreakpoints | None:
        with self._lock:
            return self._sources.get(path)

    def _source_state(self, path: str) -> SourceBreakpoints:
        with self._lock:
            return self._sources.setdefault(path, SourceBreakpoints())

    def jitted_functions(self, path: str) -> list[Any]:
        """The jitted functions of a source whose lines go to gdb: none without gdb."""
        if not self._session.jit.present:
            return []
        return jitted_functions(path, self._session.client.log)

    def set_breakpoints(self, args: dict[str, Any]) -> list[dict[str, Any] | None]:
        session = self._session
        source = args.get("source") or {}
        path = str(source.get("path") or "")
        requested = list(args.get("breakpoints") or [{"line": line} for line in args.get("lines") or []])
        functions = self.jitted_functions(path) if path else []

        def in_jit(line: int) -> bool:
            return any(f.def_line <= line <= f.end_line for f in functions)

        state = self._source_state(path)
        # gdb side: the lines in jitted functions (a prange body's in its gufunc, whose debug info names
        # the file "<string>" with the user's line numbers: break there, not at the outer function's
        # nearest line), replacing this source's breakpoints.
        prange_lines = prange_body_lines(path, functions)
        to_gdb: list[LineBreakpoint] = []
        for index, bp in enumerate(requested):
            line = int(bp.get("line", 0))
            if line in prange_lines:
                with self._lock:
                    self._parfor_sources[path] = prange_lines[line]
                to_gdb.append(LineBreakpoint(index, bp, "<string>"))
            elif in_jit(line):
                to_gdb.append(LineBreakpoint(index, bp, None))
        set_by_gdb = session.jit.set_line_breakpoints(path, state, to_gdb)
        results: list[dict[str, Any] | None] = [set_by_gdb.get(i) for i in range(len(requested))]
        # debugpy side: everything else, in one request for the whole source.
        python_indexes = [i for i, r in enumerate(results) if r is None]
        if session.python.present or python_indexes:
            python_bps = [requested[i] for i in python_indexes]
            placeholders = self._set_python_breakpoints(source, python_bps, state)
            for i, result in zip(python_indexes, placeholders, strict=True):
                results[i] = result
        return results

    def _set_python_breakpoints(
        self, source: dict[str, Any], bps: list[dict[str, Any]], state: SourceBreakpoints
    ) -> list[dict[str, Any]]:
        our_ids = [self._session.handles.new_id() for _ in bps]
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
        return self._session.python.set_source_breakpoints(source, bps, state, our_ids, placeholders)

    def set_function_breakpoints(self, bps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """To gdb when it is there (jitted functions are native code), else to debugpy."""
        session = self._session
        side = session.jit if session.jit.present else session.python
        return side.set_function_breakpoints(bps)

    def python_function_breakpoints_set(
        self, our_ids: list[int], theirs: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """debugpy's answer to its function breakpoints, with our ids."""
        results = []
        with self._lock:
            self._python_function_ids = {}
            for our_id, their in zip(our_ids, theirs, strict=False):
                if "id" in their:
                    self._python_function_ids[int(their["id"])] = our_id
                results.append({**their, "id": our_id})
        return results

    def our_bp_id(self, theirs: int) -> int:
        """Our id of one of debugpy's breakpoints (its own id when it is not one of ours)."""
        with self._lock:
            if theirs in self._python_function_ids:
                return self._python_function_ids[theirs]
            for state in self._sources.values():
                if theirs in state.debugpy_ids:
                    return state.debugpy_ids[theirs]
        return theirs

    def parfor_frame(self, gdb_path: str) -> tuple[str, str]:
        """A prange body's gufunc: its debug info names the file "<string>" but keeps the user's line
        numbers. With one file holding prange breakpoints, that is the file; else the path stays unknown."""
        with self._lock:
            sources = list(self._parfor_sources.items())
        if os.path.basename(gdb_path) == "<string>" and len(sources) == 1:
            path, function = sources[0]
            return f"prange body of {function}", path
        return "prange body", gdb_path

    # --- stopAtJitFunction without gdb -----------------------------------------------------------
    def first_statement_stop_in(self, path: str, bps: list[dict[str, Any]]) -> FirstStatementStop | None:
        """The pending first-statement stop to send with this source's breakpoints, if any."""
        stop = self.first_statement_stop
        return stop if stop is not None and stop.pending_in(path, bps) else None

    def send_first_statement_stop(self) -> None:
        """Before configurationDone: the first-statement stop goes to debugpy even if the editor has no
        breakpoint in the kernel's file."""
        stop = self.first_statement_stop
        if stop is None or not self._session.python.present:
            return
        with self._lock:
            already = any(
                same_file(path, stop.path) and state.python_requested is not None
                for path, state in self._sources.items()
            )
        if not already:
            state = self._source_state(stop.path)
            self._set_python_breakpoints({"path": stop.path, "name": os.path.basename(stop.path)}, [], state)
