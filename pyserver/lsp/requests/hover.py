"""textDocument/hover: types, signatures and diagnostic text under the cursor (pyserver.lsp.hover)."""

from __future__ import annotations

from lsprotocol import types as lsp

from pyserver.lsp import hover as hover_text
from pyserver.lsp.documents import DocumentSnapshot


def hover_context(snapshot: DocumentSnapshot) -> hover_text.HoverContext:
    return hover_text.HoverContext(
        snapshot.trusted,
        snapshot.numba_unavailable,
        snapshot.busy,
        snapshot.load_failed,
        snapshot.cell.place if snapshot.cell is not None else None,
    )


def hover(snapshot: DocumentSnapshot | None, params: lsp.HoverParams) -> lsp.Hover | None:
    if snapshot is None:
        return None
    line = params.position.line
    col = snapshot.to_index(params.position)
    answer = hover_text.hover(
        snapshot.text, snapshot.analysis, line, col, hover_context(snapshot), snapshot.latest
    )
    if answer is None:
        return None
    return lsp.Hover(
        contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=answer.markdown),
        range=lsp.Range(
            snapshot.to_client(answer.line, answer.start), snapshot.to_client(answer.line, answer.end)
        ),
    )
