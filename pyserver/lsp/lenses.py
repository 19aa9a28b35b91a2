"""Code lenses above each jitted function: its signatures and status, "Debug JIT function", and the
IR views. Discovery alone places them (no code runs); the status comes from the last analysis."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyserver.analysis.api import OVERLOAD_KINDS, TYPED_FROM_JITTED_CALLS
from pyserver.lsp.views import AnalysedDocument, FunctionView, first_line, function_views

MAX_SIGNATURES_SHOWN = 2
IR_COMMANDS = (
    ("Show types", "numbaLens.showTypes"),
    ("Numba IR", "numbaLens.showNumbaIR"),
    ("LLVM IR", "numbaLens.showLLVM"),
    ("Assembly", "numbaLens.showAssembly"),
)


@dataclass(frozen=True)
class Lens:
    line: int  # 0-based
    title: str
    command: str  # "" for a status-only lens
    arguments: list[Any] = field(default_factory=list)


def status_title(
    view: FunctionView, busy: bool, line_place: Callable[[int], str | None] | None = None
) -> str:
    info = view.info
    if info is None:
        if view.state == "changed":
            return "Numba: changed — " + ("analysing…" if busy else "save to analyse")
        return "Numba: " + ("analysing…" if busy else "not analysed yet")
    errors = sum(1 for d in view.diagnostics if d.severity == "error")
    signatures = [s.text for s in info.signatures]
    shown = ", ".join(signatures[:MAX_SIGNATURES_SHOWN])
    if len(signatures) > MAX_SIGNATURES_SHOWN:
        shown += f" (+{len(signatures) - MAX_SIGNATURES_SHOWN} more)"
    if errors:
        status = f"{errors} error{'s' if errors != 1 else ''}"
    elif not info.signatures:
        status = "types unknown"
    elif any(s.mode == "object" for s in info.signatures):
        status = "object mode"
    elif all(s.ok for s in info.signatures):
        status = "nopython ✓"
    else:
        status = "errors"
    origin = call_origin(info, line_place)
    return (f"{shown} · {status}" if shown else status) + (f" · {origin}" if origin else "")


def call_origin(info: Any, line_place: Callable[[int], str | None] | None = None) -> str:
    """Where Python-caller types come from: "types from the call at line 42" (or another file's call;
    in a notebook, "cell 6, line 3" from `line_place`)."""
    sites = [c for s in info.signatures if s.source == "python-caller" for c in s.callers[:1]]
    if not sites:
        return ""
    site = sites[0]
    named = line_place(site.line) if site.path == info.path and line_place is not None else None
    place = named or (
        f"line {site.line}" if site.path == info.path else f"{Path(site.path).name}:{site.line}"
    )
    more = len(sites) - 1
    return f"types from the call at {place}" + (f" (+{more} more)" if more else "")


def debug_choices(kind: str) -> list[tuple[str, str]]:
    """The debug lenses of one function: (title, launch mode). A CUDA kernel runs in the simulator; other
    kernels run with gdb and debugpy, or as plain Python with the JIT off (every debugpy feature)."""
    if kind == "cuda":
        return [("Debug in CUDA simulator", "cudasim")]
    if kind in OVERLOAD_KINDS:
        return []  # an @overload function runs while Numba types its callers: debug those instead
    return [("Debug JIT function", "mixed"), ("Debug as Python", "python")]


def _failure_title(load_failed: str) -> str:
    if load_failed == "could not load the module":
        return "Numba: the module could not be loaded (see Problems)"
    return f"Numba: the latest analysis {load_failed} (see Problems)"


def code_lenses(
    uri: str,
    source: str,
    analysed: AnalysedDocument | None,
    *,
    busy: bool,
    trusted: bool,
    load_failed: str = "",
    line_place: Callable[[int], str | None] | None = None,
    notebook_cell: bool = False,
) -> list[Lens]:
    """`analysed`: the last analysis that loaded the module; `load_failed`: why a later one failed ("" when none did);
    `line_place`: in a notebook cell, names the module's lines by cell. A notebook cell gets the status
    lens only: the debugger launches a program (a cell is none) and the IR views open files."""
    lenses: list[Lens] = []
    for view in function_views(source, analysed):
        function = view.current
        line = first_line(function) - 1
        if function.nested:
            # Not reachable from the module: nothing to debug or compile on its own. Its types, when a
            # recorded run compiled it (a closure, an overload's implementation), are its status.
            if trusted and not load_failed and view.info is not None and view.info.signatures:
                lenses.append(Lens(line, status_title(view, busy), ""))
            continue
        if not trusted:
            lenses.append(Lens(line, "Numba: types unavailable (workspace not trusted)", ""))
            continue
        title = _failure_title(load_failed) if load_failed else status_title(view, busy, line_place)
        lenses.append(Lens(line, title, ""))
        lenses.extend(compiles_lenses(uri, view, line))  # "3 compiles · 0.41 s"
        if notebook_cell:
            continue
        for title, mode in debug_choices(function.kind):
            lenses.append(
                Lens(
                    line,
                    title,
                    "numbaLens.debugJitFunction",
                    [{"uri": uri, "function": function.name, "line": function.def_line, "mode": mode}],
                )
            )
        typed = view.info is not None and view.info.signatures
        # an @overload has no IR of its own; a @register_jitable function's types come from its callers'
        if typed and function.kind not in TYPED_FROM_JITTED_CALLS:
            for title, command in IR_COMMANDS:
                lenses.append(Lens(line, title, command, [{"uri": uri, "line": function.def_line - 1}]))
    return lenses


def compiles_lenses(uri: str, view: FunctionView, line: int) -> list[Lens]:
    """Recompiles explained: how often a recorded run compiled the function and how long that
    took; the lens opens the list of compiles, each with why it compiled again."""
    from pyserver.analysis.api import compiles_summary as summary

    compiles = view.info.compiles if view.info is not None else []
    if not compiles:
        return []
    arguments = [{"uri": uri, "function": view.current.name}]
    return [Lens(line, summary(compiles), "numbaLens.showCompiles", arguments)]
