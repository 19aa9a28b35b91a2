"""Notebooks in the server: a notebook document (pygls keeps it and its cells' text) is analysed as one
module of its Python code cells (pyserver.analysis.notebook); what the analysis says in module lines is
published and answered per cell.

- `NotebookState` holds, per open notebook, the module last built and what each cell was last sent, so
  a cell that changed, moved or was deleted loses its stale diagnostics, and after an analysis only the
  cells whose diagnostics differ (and the cells typed in) are sent: a one-cell edit of a long notebook
  does not send every cell again.
- `in_cell` runs a document request of a cell against the notebook's module: the request's positions
  move into the module, the answer's move back, and what lies outside the cell is dropped.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import attrs
from lsprotocol import types as lsp
from pygls.workspace import Workspace

from pyserver.analysis.notebook import CellSpan, NotebookCell, NotebookModule, notebook_module

# Every cell is synced, markdown too (only Python code cells are analysed): the server then counts cells
# as the user and `check` do, so "cell 6" names the same cell everywhere.
SYNC_OPTIONS = lsp.NotebookDocumentSyncOptions(
    notebook_selector=[
        lsp.NotebookDocumentFilterWithCells(cells=[lsp.NotebookCellLanguage(language="*")], notebook="*")
    ],
    save=True,
)
SKIPPED_CODE = "not-run"


@dataclass(frozen=True)
class CellWindow:
    """Where a cell lies in its notebook's module (0-based first line, line count)."""

    notebook_uri: str
    first_line: int
    line_count: int
    module: NotebookModule | None = field(default=None, compare=False)

    def holds(self, module_line: int) -> bool:
        return self.first_line <= module_line < self.first_line + self.line_count

    def place(self, module_line: int) -> str | None:
        """A 1-based line of the notebook's module named as `check` names it: "cell 6, line 3" (cells
        count from the notebook's first, markdown included)."""
        found = self.module.locate(module_line - 1) if self.module is not None else None
        if found is None:
            return None
        span, line = found
        return f"cell {span.index + 1}, line {line + 1}"


@dataclass
class OpenNotebook:
    module: NotebookModule
    # cell URI -> the diagnostics last sent to it (a cell never sent any is absent)
    published: dict[str, list[lsp.Diagnostic]] = field(default_factory=dict)
    edited: set[str] = field(default_factory=set)  # cells whose text changed since the last split
    # what each cell's text was in the module (`_cell_texts`), for the next rebuild to compare with
    texts: dict[str, tuple[int, str]] = field(default_factory=dict)
    # id of a module diagnostic without related places (the same object published again: the not-run
    # hints) -> (it, its cell's first line, its copy in the cell's lines), as of the last split
    relocated: dict[int, tuple[lsp.Diagnostic, int, lsp.Diagnostic]] = field(default_factory=dict)


def cells_of(workspace: Workspace, notebook_uri: str) -> list[NotebookCell] | None:
    notebook = workspace.get_notebook_document(notebook_uri=notebook_uri)
    if notebook is None:
        return None
    cells = []
    for cell in notebook.cells:
        try:
            document = workspace.get_text_document(cell.document)
            text, language = document.source, document.language_id or "python"
        except Exception:
            text, language = "", "unknown"
        kind = "code" if cell.kind == lsp.NotebookCellKind.Code else "markdown"
        cells.append(NotebookCell(cell.document, kind, text, language))
    return cells


class NotebookState:
    def __init__(self) -> None:
        self._open: dict[str, OpenNotebook] = {}

    def is_notebook(self, uri: str) -> bool:
        return uri in self._open

    def rebuild(self, workspace: Workspace, notebook_uri: str) -> tuple[NotebookModule, set[str]] | None:
        """The notebook's new module, and the cells whose published diagnostics are stale now: those
        that changed, moved or were deleted (their diagnostics are cleared until the next analysis)."""
        cells = cells_of(workspace, notebook_uri)
        if cells is None:
            return None
        module = notebook_module(cells)
        after = _cell_texts(module)
        state = self._open.get(notebook_uri)
        if state is None:
            self._open[notebook_uri] = OpenNotebook(module, edited=set(after), texts=after)
            return module, set()
        before, state.module, state.texts = state.texts, module, after
        for key, (_, text) in after.items():
            if key not in before or before[key][1] != text:
                state.edited.add(key)
        stale = {key for key, sent in state.published.items() if sent and before.get(key) != after.get(key)}
        for key in stale:
            state.published[key] = []
        return module, stale

    def module(self, notebook_uri: str) -> NotebookModule | None:
        state = self._open.get(notebook_uri)
        return state.module if state is not None else None

    def close(self, notebook_uri: str) -> set[str]:
        """Forget the notebook; the cells that still show its diagnostics."""
        state = self._open.pop(notebook_uri, None)
        return {key for key, sent in state.published.items() if sent} if state is not None else set()

    def window(self, cell_uri: str) -> CellWindow | None:
        for notebook_uri, state in self._open.items():
            span = state.module.cell(cell_uri)
            if span is not None:
                return CellWindow(notebook_uri, span.first_line, span.line_count, state.module)
        return None

    def split(self, notebook_uri: str, diagnostics: list[lsp.Diagnostic]) -> dict[str, list[lsp.Diagnostic]]:
        """What to send: the module's diagnostics per cell URI, in cell lines, with the cells' own
        problems (syntax errors, skipped cells) added, for each cell whose diagnostics differ from what it
        was last sent or whose text changed since; a cell that showed some and has none now gets []."""
        state = self._open.get(notebook_uri)
        if state is None:
            return {}
        module = state.module
        per_cell: dict[str, list[lsp.Diagnostic]] = {span.key: [] for span in module.cells}
        relocated: dict[int, tuple[lsp.Diagnostic, int, lsp.Diagnostic]] = {}
        for diagnostic in diagnostics:
            found = module.locate(diagnostic.range.start.line)
            if found is None:
                continue
            span, _ = found
            kept = state.relocated.get(id(diagnostic))
            if kept is not None and kept[0] is diagnostic and kept[1] == span.first_line:
                in_cell = kept[2]  # the same object in a cell that starts where it did: the same copy
            else:
                in_cell = self._relocated(notebook_uri, module, diagnostic, span)
            if not diagnostic.related_information:  # a related place may lie in a cell that moved
                relocated[id(diagnostic)] = (diagnostic, span.first_line, in_cell)
            per_cell[span.key].append(in_cell)
        state.relocated = relocated
        for problem in module.problems:
            per_cell.setdefault(problem.key, []).append(
                lsp.Diagnostic(
                    range=lsp.Range(
                        lsp.Position(problem.line, problem.column),
                        lsp.Position(problem.line, problem.column + 1),
                    ),
                    message=problem.message + " (Numba Lens analyses the notebook's other cells)",
                    severity=lsp.DiagnosticSeverity.Error,
                    code="syntax-error",
                    source="numba-lens",
                )
            )
        for span in module.cells:
            if span.skipped and not any(p.key == span.key for p in module.problems):
                per_cell[span.key].append(skipped_hint(span))
        changed = {
            key: found
            for key, found in per_cell.items()
            if key in state.edited or found != state.published.get(key, [])
        }
        for gone, sent in state.published.items():  # deleted cells that still show diagnostics
            if gone not in per_cell and sent:
                changed[gone] = []
        state.edited = set()
        state.published = per_cell
        return changed

    @staticmethod
    def _relocated(
        notebook_uri: str, module: NotebookModule, diagnostic: lsp.Diagnostic, span: CellSpan
    ) -> lsp.Diagnostic:
        """The diagnostic in its cell's lines; a related place in the notebook moves to its own cell."""
        result = copy.copy(diagnostic)
        result.range = _range_moved(diagnostic.range, -span.first_line)
        related = []
        for info in diagnostic.related_information or []:
            found = (
                module.locate(info.location.range.start.line) if info.location.uri == notebook_uri else None
            )
            if found is not None:
                other, _ = found
                location = lsp.Location(other.key, _range_moved(info.location.range, -other.first_line))
                info = lsp.DiagnosticRelatedInformation(location=location, message=info.message)
            related.append(info)
        result.related_information = related or None
        return result


def _cell_texts(module: NotebookModule) -> dict[str, tuple[int, str]]:
    """Where each cell starts and its text in the module: a change of either makes its diagnostics
    stale; a change of its text makes it edited."""
    lines = module.source.split("\n")
    return {
        span.key: (
            span.first_line,
            "\n".join(lines[span.first_line : span.first_line + span.line_count]) + (span.skipped or ""),
        )
        for span in module.cells
    }


def _range_moved(found: lsp.Range, delta: int) -> lsp.Range:
    """`moved` for a plain range (what every diagnostic has), without copying it through deepcopy."""
    return lsp.Range(
        lsp.Position(found.start.line + delta, found.start.character),
        lsp.Position(found.end.line + delta, found.end.character),
    )


def skipped_hint(span: CellSpan) -> lsp.Diagnostic:
    return lsp.Diagnostic(
        range=lsp.Range(lsp.Position(0, 0), lsp.Position(max(span.line_count - 1, 0), 0)),
        message=f"Not analysed by Numba Lens: {span.skipped}.",
        severity=lsp.DiagnosticSeverity.Hint,
        code=SKIPPED_CODE,
        source="numba-lens",
        tags=[lsp.DiagnosticTag.Unnecessary],
    )


# --- positions: cell <-> module -------------------------------------------------------------------
def _walk(value: Any, visit: Callable[[Any], None]) -> None:
    visit(value)
    if isinstance(value, lsp.Position):
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            _walk(item, visit)
    elif isinstance(value, dict):
        for item in value.values():
            _walk(item, visit)
    elif attrs.has(type(value)):
        for attribute in attrs.fields(type(value)):
            _walk(getattr(value, attribute.name), visit)


def moved(value: Any, delta: int) -> Any:
    """A copy of an LSP value with every position (and every command argument's "line") `delta` lines
    further down."""
    value = copy.deepcopy(value)

    def shift(item: Any) -> None:
        if isinstance(item, lsp.Position):
            item.line += delta
        elif isinstance(item, dict) and isinstance(item.get("line"), int) and "uri" in item:
            item["line"] += delta

    _walk(value, shift)
    return value


def _inside(value: Any, window: CellWindow) -> bool:
    lines: list[int] = []
    _walk(value, lambda item: lines.append(item.line) if isinstance(item, lsp.Position) else None)
    return all(window.holds(line) for line in lines)


def in_cell(window: CellWindow, answer: Callable[[Any], Any], params: Any) -> Any:
    """`answer(params)` for a request about a cell, computed on the notebook's module."""
    result = answer(moved(params, window.first_line))
    if result is None:
        return None
    if isinstance(result, list):
        return [moved(item, -window.first_line) for item in result if _inside(item, window)]
    return moved(result, -window.first_line) if _inside(result, window) else None


__all__ = ["SYNC_OPTIONS", "CellWindow", "NotebookState", "cells_of", "in_cell", "moved"]
