"""textDocument/codeAction: quick fixes for the diagnostics in the request (pyserver.lsp.actions), and
the rewrite that writes types known only from a run, the cache or a caller into the source."""

from __future__ import annotations

from lsprotocol import types as lsp

from pyserver.lsp import actions
from pyserver.lsp.documents import DocumentSnapshot
from pyserver.lsp.views import function_views, view_at

OPTIONS = lsp.CodeActionOptions(
    code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.RefactorRewrite]
)
FIXABLE_CODES = ("untyped-variable", "no-signature", "deprecation")
RECORD_COMMAND = "numbaLens.recordSignaturesInTerminal"  # implemented by the client
BORROWED_SOURCES = ("recorded", "kernel", "cache", "caller")


def code_action(snapshot: DocumentSnapshot | None, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    if snapshot is None:
        return []

    def wanted(kind: lsp.CodeActionKind) -> bool:
        only = [str(getattr(k, "value", k)) for k in params.context.only or []]
        return not only or any(kind.value == k or kind.value.startswith(f"{k}.") for k in only)

    result = []
    for diagnostic in params.context.diagnostics if wanted(lsp.CodeActionKind.QuickFix) else []:
        result.extend(quick_fix_actions(snapshot, diagnostic))
    if wanted(lsp.CodeActionKind.RefactorRewrite):
        result.extend(pin_types_actions(snapshot, params.range.start.line + 1))
    return result


def quick_fix_actions(snapshot: DocumentSnapshot, diagnostic: lsp.Diagnostic) -> list[lsp.CodeAction]:
    data = diagnostic.data if isinstance(diagnostic.data, dict) else None
    error_class = data is not None and data.get("errorClass")
    if diagnostic.code not in FIXABLE_CODES and not error_class:  # error classes have fixes of their own
        return []
    fixes = actions.quick_fixes(snapshot.text, str(diagnostic.code), diagnostic.range.start.line + 1, data)
    result = []
    if diagnostic.code == "no-signature" and not fixes:
        # No types to write down yet: a run with recording switched on gets them.
        title = "Record signatures: run your program or tests once in a recording terminal"
        result.append(
            lsp.CodeAction(
                title=title,
                kind=lsp.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=lsp.Command(title=title, command=RECORD_COMMAND),
            )
        )
    for fix in fixes:
        result.append(
            lsp.CodeAction(
                title=fix.title,
                kind=lsp.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                is_preferred=fix.preferred or None,
                edit=lsp.WorkspaceEdit(changes={snapshot.uri: snapshot.text_edits(fix.edits)}),
            )
        )
    return result


def pin_types_actions(snapshot: DocumentSnapshot, line: int) -> list[lsp.CodeAction]:
    """Types known only from a run, the cache or a caller: offer to write them into the source."""
    view = view_at(function_views(snapshot.text, snapshot.analysis), line)
    if view is None or view.info is None or view.current.annotations or view.current.signatures:
        return []
    borrowed = [s.args for s in view.info.signatures if s.source in BORROWED_SOURCES]
    if not borrowed:
        return []
    return [
        lsp.CodeAction(
            title=fix.title,
            kind=lsp.CodeActionKind.RefactorRewrite,
            edit=lsp.WorkspaceEdit(changes={snapshot.uri: snapshot.text_edits(fix.edits)}),
        )
        for fix in actions.pin_types_fixes(snapshot.text, view.current.name, borrowed)
    ]
