"""The notebook notifications: opening, changing (cells typed in, added, moved or deleted) and saving a
notebook analyses its Python cells (typing after the on-type delay) as one module (pyserver.lsp.notebooks); closing clears its cells'
diagnostics. pygls keeps the notebook and its cells' text."""

from __future__ import annotations

from lsprotocol import types as lsp

from pyserver.lsp.session import Session


def did_open(session: Session, params: lsp.DidOpenNotebookDocumentParams) -> None:
    session.notebook_changed(params.notebook_document.uri)


def did_change(session: Session, params: lsp.DidChangeNotebookDocumentParams) -> None:
    # A notebook has no per-cell save: typing in a cell analyses after the on-type delay, whatever
    # analyzeOnType says; adding, moving or deleting cells analyses at once.
    cells = params.change.cells
    structure_changed = cells is not None and cells.structure is not None
    delay_s = 0.0 if structure_changed else session.settings.analyze_on_type_delay_ms / 1000
    session.notebook_changed(params.notebook_document.uri, delay_s)


def did_save(session: Session, params: lsp.DidSaveNotebookDocumentParams) -> None:
    session.notebook_changed(params.notebook_document.uri)


def did_close(session: Session, params: lsp.DidCloseNotebookDocumentParams) -> None:
    session.close_notebook(params.notebook_document.uri)
