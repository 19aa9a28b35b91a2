"""The document notifications: opening, saving (and typing, when analyse-on-type is on) schedules an
analysis; closing forgets the document and clears its diagnostics. pygls keeps the text itself."""

from __future__ import annotations

from lsprotocol import types as lsp

from pyserver.lsp.session import Session


def did_open(session: Session, params: lsp.DidOpenTextDocumentParams) -> None:
    session.request_analysis(params.text_document.uri)


def did_change(session: Session, params: lsp.DidChangeTextDocumentParams) -> None:
    if session.settings.analyze_on_type:
        session.request_analysis(params.text_document.uri, session.settings.analyze_on_type_delay_ms / 1000)


def did_save(session: Session, params: lsp.DidSaveTextDocumentParams) -> None:
    session.request_analysis(params.text_document.uri)


def did_close(session: Session, params: lsp.DidCloseTextDocumentParams) -> None:
    session.close_document(params.text_document.uri)
