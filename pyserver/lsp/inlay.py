"""Inlay hints: `: float64` after an assignment target, `-> float64` after a jitted function's
parameter list. A hint appears only where every known signature gives the target one recorded
type; long labels are cut to `maxLength` and the full text comes on inlayHint/resolve."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pyserver.lsp import parallel
from pyserver.lsp.syntax import header_end, names_in
from pyserver.lsp.typeinfo import occurrence_types
from pyserver.lsp.views import AnalysedDocument, FunctionView, function_views

_LITERAL_SUFFIX = re.compile(r" \(literal .*\)$")


@dataclass(frozen=True)
class Hint:
    line: int  # 0-based
    col: int  # code points
    label: str  # possibly truncated
    full_label: str
    details: tuple[str, ...]  # one line per signature, for the resolved tooltip
    kind: str  # "type" | "return" | "parallel"


def truncate(text: str, max_length: int) -> str:
    return text if len(text) <= max_length else text[: max(1, max_length - 1)] + "…"


def _joined(types: list[str]) -> str:
    distinct = list(dict.fromkeys(types))
    return " | ".join(distinct)


def _variable_hints(source: str, view: FunctionView, first: int, last: int, max_length: int) -> list[Hint]:
    info = view.info
    if info is None or not info.signatures:
        return []
    hints = []
    seen: set[tuple[int, int]] = set()
    for occurrence in names_in(source, view.current):
        if occurrence.role != "store" or occurrence.annotated or occurrence.augmented:
            continue
        if not first <= occurrence.line <= last or (occurrence.line, occurrence.col) in seen:
            continue
        seen.add((occurrence.line, occurrence.col))
        analysed_line = view.to_analysed(occurrence.line)
        rows = [occurrence_types(signature, occurrence, analysed_line) for signature in info.signatures]
        if any(row.exact is None for row in rows):
            continue  # unknown in some signature, or several versions on this line: no hint
        # The plain type reads better inline; the literal value is in the tooltip.
        types = [_LITERAL_SUFFIX.sub("", row.exact) for row in rows if row.exact is not None]
        full = ": " + _joined(types)
        details = tuple(f"{occurrence.name}: {row.exact}  # {row.signature.text}" for row in rows)
        hints.append(
            Hint(occurrence.line - 1, occurrence.end_col, truncate(full, max_length), full, details, "type")
        )
    return hints


def _return_hint(source: str, view: FunctionView, first: int, last: int, max_length: int) -> Hint | None:
    info = view.info
    if info is None or not info.signatures:
        return None
    if any(signature.return_type is None for signature in info.signatures):
        return None
    position = header_end(source, view.current)
    if position is None:
        return None
    line, col, annotated = position
    if annotated or not first <= line <= last:
        return None
    types = [signature.return_type for signature in info.signatures if signature.return_type is not None]
    full = "-> " + _joined(types)
    details = tuple(f"{signature.text}" for signature in info.signatures)
    return Hint(line - 1, col, truncate(full, max_length), full, details, "return")


def inlay_hints(
    source: str,
    analysed: AnalysedDocument | None,
    first_line: int,
    last_line: int,
    *,
    variable_types: bool,
    return_types: bool,
    max_length: int,
    parallel_loops: bool = True,
) -> list[Hint]:
    """Hints for the 0-based line range [first_line, last_line]; `parallel_loops`: the parallel report
    of parallel=True functions at the end of each loop line (pyserver.lsp.parallel)."""
    first, last = first_line + 1, last_line + 1
    hints: list[Hint] = []
    for view in function_views(source, analysed):
        if view.current.end_line < first or view.current.def_line > last:
            continue
        if return_types:
            hint = _return_hint(source, view, first, last, max_length)
            if hint is not None:
                hints.append(hint)
        if variable_types:
            hints.extend(_variable_hints(source, view, first, last, max_length))
        if parallel_loops and view.info is not None and view.info.options.get("parallel"):
            for line, col, label, text in parallel.hint_positions(source, view, first, last):
                hints.append(Hint(line, col, "  " + label, "  " + label, (text,), "parallel"))
    # One hint per place: a function nested in another (an @overload's implementation, typed both through
    # its typing function and from its own recorded compiles) comes later and keeps its own.
    unique = {(hint.line, hint.col, hint.kind): hint for hint in hints}
    return sorted(unique.values(), key=lambda hint: (hint.line, hint.col))
