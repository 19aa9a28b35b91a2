"""Notebooks over the real server: notebookDocument notifications for a notebook of Python cells;
diagnostics, hover, inlay hints and quick fixes land on the right cell; stale diagnostics of a changed
or deleted cell are cleared; nothing in the notebook runs."""

from __future__ import annotations

from pathlib import Path

from lsp_session import Session, cell_text_change, start_session, uri_of
from lsprotocol import types as lsp

KERNEL = """@njit
def kernel(a):
    s = 0.0
    for x in a:
        s += x
    return s
"""
BAD = """@njit
def bad(x):
    return x + 'a'
"""


class Notebook:
    """The client's side of one notebook: its cells' URIs and texts, sent as notebookDocument/*."""

    def __init__(self, session: Session, path: Path, cells: list[tuple[str, str]]) -> None:
        self.session = session
        self.uri = uri_of(path)
        self.version = 1
        self.cells: list[tuple[str, str, str]] = []  # (uri, kind, text)
        self.counter = 0
        for kind, text in cells:
            self.cells.append((self.new_cell_uri(), kind, text))

    def new_cell_uri(self) -> str:
        self.counter += 1
        return f"vscode-notebook-cell:{self.uri[len('file:') :]}#C{self.counter}"

    def cell_uri(self, index: int) -> str:
        return self.cells[index][0]

    @staticmethod
    def item(uri: str, kind: str, text: str) -> lsp.TextDocumentItem:
        return lsp.TextDocumentItem(uri, "python" if kind == "code" else "markdown", 1, text)

    @staticmethod
    def cell(uri: str, kind: str) -> lsp.NotebookCell:
        code = lsp.NotebookCellKind.Code if kind == "code" else lsp.NotebookCellKind.Markup
        return lsp.NotebookCell(kind=code, document=uri)

    def open(self) -> None:
        self.session.client.notebook_document_did_open(
            lsp.DidOpenNotebookDocumentParams(
                notebook_document=lsp.NotebookDocument(
                    uri=self.uri,
                    notebook_type="jupyter-notebook",
                    version=self.version,
                    cells=[self.cell(uri, kind) for uri, kind, _ in self.cells],
                ),
                cell_text_documents=[self.item(*cell) for cell in self.cells],
            )
        )

    def edit(self, index: int, text: str) -> None:
        uri, kind, old = self.cells[index]
        self.cells[index] = (uri, kind, text)
        self.version += 1
        self.session.client.notebook_document_did_change(
            cell_text_change(self.uri, self.version, uri, old, text)
        )

    def delete(self, index: int) -> None:
        uri, _, _ = self.cells.pop(index)
        self.version += 1
        self.session.client.notebook_document_did_change(
            lsp.DidChangeNotebookDocumentParams(
                notebook_document=lsp.VersionedNotebookDocumentIdentifier(self.version, self.uri),
                change=lsp.NotebookDocumentChangeEvent(
                    cells=lsp.NotebookDocumentCellChanges(
                        structure=lsp.NotebookDocumentCellChangeStructure(
                            array=lsp.NotebookCellArrayChange(start=index, delete_count=1),
                            did_close=[lsp.TextDocumentIdentifier(uri)],
                        )
                    )
                ),
            )
        )

    def close(self) -> None:
        self.session.client.notebook_document_did_close(
            lsp.DidCloseNotebookDocumentParams(
                notebook_document=lsp.NotebookDocumentIdentifier(self.uri),
                cell_text_documents=[lsp.TextDocumentIdentifier(uri) for uri, _, _ in self.cells],
            )
        )


def codes(diagnostics: list[lsp.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


async def test_cells_are_analysed_as_one_module_and_answered_per_cell(tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    cells = [
        (
            "code",
            "import numpy as np\nfrom numba import njit\n!pip install numba\n%load_ext pyserver.notebook",
        ),
        ("markdown", "# A kernel"),
        ("code", KERNEL),
        ("code", f"a = np.ones(10)\nopen({str(marker)!r}, 'w').write('ran')\n%timeit kernel(a)\nkernel?"),
        ("code", "%%bash\necho hello"),
        ("code", BAD + "bad(1)\nwhile True: pass\n"),
        ("code", "def oops(:\n    pass"),
        ("code", "from numba import jit\n\n@jit(nopython=False)\ndef legacy(x):\n    return x + 1"),
    ]
    session = await start_session(tmp_path)
    try:
        notebook = Notebook(session, tmp_path / "nb.ipynb", cells)
        bad_uri = notebook.cell_uri(5)
        notebook.open()
        # each cell's diagnostics come in a notification of their own: wait for every cell read below
        for number in (2, 4, 5, 6):
            uri = notebook.cell_uri(number)
            await session.wait_for(lambda uri=uri: session.publishes[uri], what=f"diagnostics of {uri}")
        bad = session.diagnostics(bad_uri)
        assert codes(bad).count("typing-error") == 1
        error = next(d for d in bad if d.code == "typing-error")
        assert error.range.start.line == 2  # `return x + 'a'`, line 3 of its cell
        # The cell with a syntax error says so; the %%bash cell is shown as skipped; the others run.
        syntax = session.diagnostics(notebook.cell_uri(6))
        assert codes(syntax) == ["syntax-error"] and syntax[0].range.start.line == 0
        bash = session.diagnostics(notebook.cell_uri(4))
        assert codes(bash) == ["not-run"]
        kernel_cell = notebook.cell_uri(2)
        assert codes(session.diagnostics(kernel_cell)) == []
        # Types at first sight from `%timeit kernel(a)` in a later cell: hover and inlay hints in the cell.
        hover = await session.client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(kernel_cell), lsp.Position(2, 5))
        )
        assert hover is not None and "float64" in str(hover.contents)
        assert hover.range is not None and hover.range.start.line == 2
        hints = await session.client.text_document_inlay_hint_async(
            lsp.InlayHintParams(
                lsp.TextDocumentIdentifier(kernel_cell), lsp.Range(lsp.Position(0, 0), lsp.Position(7, 0))
            )
        )
        assert hints and all(0 <= hint.position.line < 7 for hint in hints)
        assert any("float64" in str(hint.label) for hint in hints)
        lenses = await session.client.text_document_code_lens_async(
            lsp.CodeLensParams(lsp.TextDocumentIdentifier(kernel_cell))
        )
        assert lenses and all(lens.range.start.line == 0 for lens in lenses)
        # Where the types come from is named by cell and line, never by the module's line.
        titles = [lens.command.title for lens in lenses if lens.command is not None]
        assert any("types from the call at cell 4, line 3" in title for title in titles), titles
        # The status lens only: the debugger launches a program (a cell is none), the IR views open files.
        assert [lens.command.command for lens in lenses if lens.command is not None] == [""]
        function_hover = await session.client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(kernel_cell), lsp.Position(1, 6))
        )
        assert function_hover is not None and "the call at cell 4, line 3" in str(function_hover.contents)
        # A quick fix on a cell edits that cell, in its own lines.
        legacy_uri = notebook.cell_uri(7)
        deprecation = next(d for d in session.diagnostics(legacy_uri) if d.code == "deprecation")
        assert deprecation.range.start.line == 2
        actions = await session.client.text_document_code_action_async(
            lsp.CodeActionParams(
                lsp.TextDocumentIdentifier(legacy_uri),
                deprecation.range,
                lsp.CodeActionContext(diagnostics=[deprecation], only=[lsp.CodeActionKind.QuickFix]),
            )
        )
        fixes = [a for a in actions or [] if isinstance(a, lsp.CodeAction)]
        assert fixes and fixes[0].edit is not None and fixes[0].edit.changes is not None
        edits = fixes[0].edit.changes[legacy_uri]
        assert edits and all(edit.range.start.line == 2 for edit in edits)
        # Skipped statements of a cell are faded, on their cell.
        calls_cell = session.diagnostics(notebook.cell_uri(3))
        assert {d.range.start.line for d in calls_cell if d.code == "not-run"} >= {1}
        # Fixing the bad cell clears its diagnostic; deleting the broken cell clears its own.
        before = session.publish_count(bad_uri)
        notebook.edit(5, BAD.replace("x + 'a'", "x + 1"))
        await session.wait_for(
            lambda: (
                session.publish_count(bad_uri) > before
                and "typing-error" not in codes(session.diagnostics(bad_uri))
            ),
            what="the fixed cell's diagnostics",
        )
        syntax_uri = notebook.cell_uri(6)
        notebook.delete(6)
        await session.wait_for(lambda: session.diagnostics(syntax_uri) == [], what="the deleted cell cleared")
        notebook.close()
        await session.wait_for(
            lambda: session.diagnostics(notebook.cell_uri(3)) == [], what="closed notebook cleared"
        )
        assert not marker.exists(), "a statement of the notebook ran during analysis"
    finally:
        await session.shutdown()


async def test_bad_input_survives_and_nothing_runs(tmp_path: Path) -> None:
    """500 cells, each of which would write a file; a cell that never ends; syntax errors; markdown,
    raw-like and %%bash cells: the server analyses the rest, runs none of it, and stays up."""
    marker = tmp_path / "ran"
    cells = [("code", "import numpy as np\nfrom numba import njit")]
    for number in range(496):
        write = f"open({str(marker)!r} + '{number}', 'w').write('x')"
        if number % 50 == 0:
            cells.append(("code", f"@njit\ndef f{number}(x):\n    return x + 1\n\nf{number}(2.0)\n{write}"))
        elif number % 50 == 1:
            cells.append(("markdown", f"# section {number}\n{write}"))
        elif number % 50 == 2:
            cells.append(("code", f"%%bash\ntouch {marker}bash{number}"))
        elif number % 50 == 3:
            cells.append(("code", f"def broken{number}(:\n    {write}"))
        else:
            cells.append(("code", f"values{number} = [i for i in range(3)]\n{write}"))
    cells += [("code", "while True:\n    pass"), ("code", "for i in range(10**12):\n    pass")]
    cells += [("code", "@njit\ndef last(x):\n    return x * 2\n\nlast(np.ones(3))")]
    assert len(cells) == 500
    session = await start_session(tmp_path)
    try:
        notebook = Notebook(session, tmp_path / "big.ipynb", cells)
        notebook.open()
        last_uri = notebook.cell_uri(499)
        await session.wait_for(lambda: session.publishes[last_uri], what="diagnostics of the last cell")
        hover = await session.client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(last_uri), lsp.Position(1, 5))
        )
        assert hover is not None and "array(float64, 1d, C)" in str(hover.contents)
        broken = session.diagnostics(notebook.cell_uri(4))
        assert codes(broken) == ["syntax-error"]
        assert "not-run" in codes(session.diagnostics(notebook.cell_uri(497)))  # the endless loop: faded
        # The server is still answering after all that.
        hover = await session.client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(notebook.cell_uri(1)), lsp.Position(1, 5))
        )
        assert hover is not None and "float64" in str(hover.contents)
        assert list(tmp_path.glob("ran*")) == [], "a statement of the notebook ran during analysis"
    finally:
        await session.shutdown()
