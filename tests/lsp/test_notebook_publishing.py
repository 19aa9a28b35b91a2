"""What a notebook's analysis publishes per cell (NotebookState.split over convert.document_diagnostics),
when the hints of the last analysis are published again: each cell gets what a server that has
published nothing before would send it, also when cells moved under the same hints."""

from __future__ import annotations

from pathlib import Path

from lsp_session import cell_text_change
from lsprotocol import types as lsp
from pygls.uris import from_fs_path
from pygls.workspace import Workspace

from pyserver.analysis.model import FileResult, SkippedStatement
from pyserver.lsp import convert
from pyserver.lsp.notebooks import NotebookState
from pyserver.lsp.settings import Settings
from pyserver.lsp.views import AnalysedDocument

# Lines of one length: a hint's range in the module is then the same before and after the edit below.
CELLS = ["import numpy as np", "a = np.ones(3)\nb = np.ones(4)", "c = np.ones(5)\nd = np.ones(6)"]


class OpenNotebook:
    def __init__(self, root: Path) -> None:
        self.workspace = Workspace(from_fs_path(str(root)))
        self.path = str(root / "nb.ipynb")
        self.uri = from_fs_path(self.path) or ""
        self.cells = [f"vscode-notebook-cell:{self.uri[5:]}#C{n}" for n in range(len(CELLS))]
        self.texts = list(CELLS)
        self.version = 1
        self.workspace.put_notebook_document(
            lsp.DidOpenNotebookDocumentParams(
                notebook_document=lsp.NotebookDocument(
                    uri=self.uri,
                    notebook_type="jupyter-notebook",
                    version=1,
                    cells=[lsp.NotebookCell(kind=lsp.NotebookCellKind.Code, document=c) for c in self.cells],
                ),
                cell_text_documents=[
                    lsp.TextDocumentItem(c, "python", 1, t) for c, t in zip(self.cells, CELLS, strict=True)
                ],
            )
        )

    def edit(self, index: int, text: str) -> None:
        old, self.texts[index] = self.texts[index], text
        self.version += 1
        self.workspace.update_notebook_document(
            cell_text_change(self.uri, self.version, self.cells[index], old, text)
        )

    def published(
        self, state: NotebookState, skipped_lines: list[tuple[int, int]]
    ) -> dict[str, list[lsp.Diagnostic]]:
        """What `state` sends for an analysis that did not run these (1-based, module) lines."""
        state.rebuild(self.workspace, self.uri)
        module = state.module(self.uri)
        assert module is not None
        result = FileResult(self.path, skipped=[SkippedStatement(a, b, "a call") for a, b in skipped_lines])
        analysed = AnalysedDocument(self.uri, self.path, module.source, self.version, result)
        return state.split(self.uri, convert.document_diagnostics(analysed, Settings(), "utf-16"))


def ranges(sent: list[lsp.Diagnostic]) -> list[tuple[int, int, int, int]]:
    return [
        (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) for d in sent
    ]


def test_hints_published_again_land_where_a_first_publish_puts_them(tmp_path: Path) -> None:
    notebook = OpenNotebook(tmp_path)
    editing = NotebookState()
    shown = notebook.published(editing, [(2, 2), (3, 3), (4, 4), (5, 5)])  # what the editor shows per cell
    assert ranges(shown[notebook.cells[1]]) == [(0, 0, 0, 14), (1, 0, 1, 14)]
    assert ranges(shown[notebook.cells[2]]) == [(0, 0, 0, 14), (1, 0, 1, 14)]
    # The first cell gains a line. The last analysis's hints (in module lines) are published again
    # before the next analysis (a settings change does that), then the next analysis's: the same hint
    # objects now fall a line further up in their cells, or in the cell above.
    notebook.edit(0, "import numpy as np\nz = np.ones(2)")
    for skipped in ([(2, 2), (3, 3), (4, 4), (5, 5)], [(3, 3), (4, 4), (5, 5), (6, 6)]):
        shown.update(notebook.published(editing, skipped))
        fresh = notebook.published(NotebookState(), skipped)  # sends every cell
        assert {cell: ranges(sent) for cell, sent in shown.items()} == {
            cell: ranges(sent) for cell, sent in fresh.items()
        }, skipped
    assert ranges(shown[notebook.cells[1]]) == [(0, 0, 0, 14), (1, 0, 1, 14)]
    assert ranges(shown[notebook.cells[2]]) == [(0, 0, 0, 14), (1, 0, 1, 14)]
