"""Notebooks in the server: a notebook document (pygls keeps it and its cells' text) is analysed as one
module of its Python code cells (pyserver.analysis.notebook); what the analysis says in module lines is
published and answered per cell.

- `NotebookState` holds, per open notebook, the module last built and the cells diagnostics were last
  published to, so a cell that changed, moved or was deleted loses its stale ones.
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

SYNC_OPTIONS = lsp.NotebookDocumentSyncOptions(
    notebook_selector=[
        lsp.NotebookDocumentFilterWithCells(cells=[lsp.NotebookCellLanguage(language="python")], notebook="*")
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

    def holds(self, module_line: int) -> bool:
        return self.first_line <= module_line < self.first_line + self.line_count


@dataclass
class OpenNotebook:
    module: NotebookModule
    published: set[str] = field(default_factory=set)  # cell URIs diagnostics were published to


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
        state = self._open.get(notebook_uri)
        if state is None:
            self._open[notebook_uri] = OpenNotebook(module)
            return module, set()
        old, state.module = state.module, module
        old_lines, new_lines = old.source.split("\n"), module.source.split("\n")
        stale = {
            key
            for key in state.published
            if _cell_text(old, old_lines, key) != _cell_text(module, new_lines, key)
        }
        state.published -= stale
        return module, stale

    def module(self, notebook_uri: str) -> NotebookModule | None:
        state = self._open.get(notebook_uri)
        return state.module if state is not None else None

    def close(self, notebook_uri: str) -> set[str]:
        """Forget the notebook; the cells that still show its diagnostics."""
        state = self._open.pop(notebook_uri, None)
        return state.published if state is not None else set()

    def window(self, cell_uri: str) -> CellWindow | None:
        for notebook_uri, state in self._open.items():
            span = state.module.cell(cell_uri)
            if span is not None:
                return CellWindow(notebook_uri, span.first_line, span.line_count)
        return None

    def split(self, notebook_uri: str, diagnostics: list[lsp.Diagnostic]) -> dict[str, list[lsp.Diagnostic]]:
        """The module's diagnostics per cell URI, in cell lines, with the cells' own problems (syntax
        errors, skipped cells) added; every cell published before and now without any gets []."""
        state = self._open.get(notebook_uri)
        if state is None:
            return {}
        module = state.module
        per_cell: dict[str, list[lsp.Diagnostic]] = {span.key: [] for span in module.cells}
        for diagnostic in diagnostics:
            found = module.locate(diagnostic.range.start.line)
            if found is None:
                continue
            span, _ = found
            per_cell[span.key].append(self._relocated(notebook_uri, module, diagnostic, span))
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
        for stale in state.published - per_cell.keys():
            per_cell[stale] = []
        state.published = {uri for uri, found in per_cell.items() if found}
        return per_cell

    @staticmethod
    def _relocated(
        notebook_uri: str, module: NotebookModule, diagnostic: lsp.Diagnostic, span: CellSpan
    ) -> lsp.Diagnostic:
        """The diagnostic in its cell's lines; a related place in the notebook moves to its own cell."""
        result = copy.copy(diagnostic)
        result.range = moved(diagnostic.range, -span.first_line)
        related = []
        for info in diagnostic.related_information or []:
            found = (
                module.locate(info.location.range.start.line) if info.location.uri == notebook_uri else None
            )
            if found is not None:
                other, _ = found
                location = lsp.Location(other.key, moved(info.location.range, -other.first_line))
                info = lsp.DiagnosticRelatedInformation(location=location, message=info.message)
            related.append(info)
        result.related_information = related or None
        return result


def _cell_text(module: NotebookModule, lines: list[str], key: str) -> tuple[int, str] | None:
    """Where a cell starts and its text in the module: a change of either makes its diagnostics stale."""
    span = module.cell(key)
    if span is None:
        return None
    text = "\n".join(lines[span.first_line : span.first_line + span.line_count])
    return span.first_line, text + (span.skipped or "")


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
