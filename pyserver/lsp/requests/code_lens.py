"""textDocument/codeLens: a status lens over each jitted function, with its debug and compile-history
lenses (pyserver.lsp.lenses)."""

from __future__ import annotations

from lsprotocol import types as lsp

from pyserver.lsp import lenses
from pyserver.lsp.documents import DocumentSnapshot

OPTIONS = lsp.CodeLensOptions(resolve_provider=False)


def code_lens(snapshot: DocumentSnapshot | None, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
    if snapshot is None or not snapshot.settings.code_lens_enable:
        return []
    found = lenses.code_lenses(
        snapshot.uri,
        snapshot.text,
        snapshot.analysis,
        busy=snapshot.busy,
        trusted=snapshot.trusted,
        load_failed=snapshot.load_failed,
        line_place=snapshot.cell.place if snapshot.cell is not None else None,
        notebook_cell=snapshot.cell is not None,
    )
    return [
        lsp.CodeLens(
            range=lsp.Range(lsp.Position(lens.line, 0), lsp.Position(lens.line, 0)),
            command=lsp.Command(title=lens.title, command=lens.command, arguments=lens.arguments or None),
        )
        for lens in found
    ]
