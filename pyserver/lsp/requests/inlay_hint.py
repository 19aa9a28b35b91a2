"""textDocument/inlayHint and inlayHint/resolve: the types of variables and returns, and the parallel
report, at the end of lines (pyserver.lsp.inlay); the tooltip is filled in on resolve."""

from __future__ import annotations

from lsprotocol import types as lsp

from pyserver.lsp import inlay
from pyserver.lsp.documents import DocumentSnapshot
from pyserver.lsp.session import Session

OPTIONS = lsp.InlayHintOptions(resolve_provider=True)


def inlay_hint(snapshot: DocumentSnapshot | None, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
    if snapshot is None:
        return []
    settings = snapshot.settings
    if not (settings.inlay_variable_types or settings.inlay_return_types):
        return []
    hints = inlay.inlay_hints(
        snapshot.text,
        snapshot.analysis,
        params.range.start.line,
        params.range.end.line,
        variable_types=settings.inlay_variable_types,
        return_types=settings.inlay_return_types,
        max_length=settings.inlay_max_length,
    )
    return [
        lsp.InlayHint(
            position=snapshot.to_client(hint.line, hint.col),
            label=hint.label,
            kind=lsp.InlayHintKind.Type,
            padding_left=hint.kind == "return",
            data={"full": hint.full_label, "details": list(hint.details), "kind": hint.kind},
        )
        for hint in hints
    ]


def resolve(session: Session, hint: lsp.InlayHint) -> lsp.InlayHint:
    """The tooltip: the full type (when the label was cut) and the details, from the hint's data."""
    data = hint.data if isinstance(hint.data, dict) else {}
    details = [str(line) for line in data.get("details", [])]
    full = str(data.get("full", hint.label))
    body = "```python\n" + "\n".join(details or [full]) + "\n```"
    if data.get("kind") == "parallel":  # the parallel report is markdown already
        body = "\n".join(details) or full
    elif full != hint.label:
        body = f"`{full}`\n\n" + body
    hint.tooltip = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=body)
    return hint
