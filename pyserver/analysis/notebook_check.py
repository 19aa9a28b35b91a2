"""`check` on a notebook: its Python cells analysed as one module (pyserver.analysis.notebook), the
result's lines moved back into cells. Each diagnostic's `data["cell"]` is the 1-based number of its cell
among all the notebook's cells (markdown included, as a front end shows them) and its range is in that
cell's lines; `cell_label` spells the place for the text report."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from pyserver.analysis.model import Diagnostic, FileResult, Range
from pyserver.analysis.notebook import NotebookError, NotebookModule, notebook_module, read_notebook


class NotebookEngine(Protocol):
    def analyze(self, path: str | Path, source: str | None = None) -> FileResult: ...


def _moved(value: Range, delta: int) -> Range:
    return Range.of(
        value.start.line + delta, value.start.character, value.end.line + delta, value.end.character
    )


def _cell_range(value: Range, module: NotebookModule) -> tuple[Range, int | None]:
    found = module.locate(value.start.line)
    if found is None:
        return value, None
    span, _ = found
    return _moved(value, -span.first_line), span.index + 1


def _in_cells(result: FileResult, path: str, module: NotebookModule) -> FileResult:
    """Module lines -> cell lines, for the diagnostics and their related places in the notebook
    (`data["relatedCells"]`: the cell of each related place, None for one in another file)."""
    notebook = Path(path).resolve()
    for diagnostic in result.diagnostics:
        if Path(diagnostic.path).resolve() != notebook:
            continue
        diagnostic.range, cell = _cell_range(diagnostic.range, module)
        related_cells: list[int | None] = []
        for related in diagnostic.relatedInformation:
            related_cell = None
            if Path(related.path).resolve() == notebook:
                related.range, related_cell = _cell_range(related.range, module)
            related_cells.append(related_cell)
        diagnostic.data = {**(diagnostic.data or {}), "cell": cell, "relatedCells": related_cells}
    return result


def cell_problem_diagnostics(path: str, module: NotebookModule) -> list[Diagnostic]:
    """The cells left out of the module because they are not valid Python."""
    cell_numbers = {span.key: span.index + 1 for span in module.cells}
    return [
        Diagnostic(
            path=path,
            range=Range.of(problem.line, problem.column, problem.line, problem.column + 1),
            severity="error",
            code="analysis-failed",
            message=problem.message + " (the notebook's other cells are analysed)",
            source="numba-lens",
            data={"cell": cell_numbers.get(problem.key)},
        )
        for problem in module.problems
    ]


def analyse_notebook(engine: NotebookEngine, path: Path) -> FileResult:
    """The notebook's analysis, in cell lines; a malformed notebook is one diagnostic, never a crash."""
    try:
        cells = read_notebook(path)
    except NotebookError as exc:
        return FileResult(
            str(path),
            diagnostics=[
                Diagnostic(
                    str(path),
                    Range.of(0, 0, 0, 0),
                    "error",
                    "analysis-failed",
                    f"The notebook could not be analysed: {exc}.",
                    source="numba-lens",
                )
            ],
            status="failed",
        )
    module = notebook_module(cells)
    result = _in_cells(engine.analyze(path, module.source), str(path), module)
    result.diagnostics.extend(cell_problem_diagnostics(str(path), module))
    return result


def cell_of(diagnostic: Any) -> int | None:
    data = getattr(diagnostic, "data", None)
    cell = data.get("cell") if isinstance(data, dict) else None
    return cell if isinstance(cell, int) else None


def related_cell_of(diagnostic: Any, index: int) -> int | None:
    data = getattr(diagnostic, "data", None)
    cells = data.get("relatedCells") if isinstance(data, dict) else None
    cell = cells[index] if isinstance(cells, list) and index < len(cells) else None
    return cell if isinstance(cell, int) else None


def cell_label(cell: int | None) -> str:
    """ "cell 3:" for a place in a notebook's cell, "" otherwise."""
    return f"cell {cell}:" if cell is not None else ""


__all__ = ["analyse_notebook", "cell_label", "cell_of", "cell_problem_diagnostics", "related_cell_of"]
