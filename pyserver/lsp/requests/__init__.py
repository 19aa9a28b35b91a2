"""Every request and notification the server handles, one module each (or one per group of small
notifications), and `ROUTES`: the one table from LSP method to handler that the server registers.

Two kinds of handler:

- a document handler takes the `DocumentSnapshot` of the document the params name (None when it is
  not open), taken on the protocol loop, and the params, and returns the result; it reads nothing
  else, so it runs on a worker thread (parsing a large buffer must not stall the protocol loop);
- a session handler takes the `Session` and the params, on the protocol loop: lifecycle, document
  notifications, settings, requests that run the engine, and inlayHint/resolve (which needs neither).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp

from pyserver.lsp.documents import DocumentSnapshot
from pyserver.lsp.requests import (
    code_action,
    code_lens,
    compiles,
    configuration,
    hover,
    inlay_hint,
    ir_view,
    lifecycle,
    notebook_sync,
    text_sync,
    type_stability,
)
from pyserver.lsp.session import Session


@dataclass(frozen=True)
class DocumentRoute:
    method: str
    handler: Callable[[DocumentSnapshot | None, Any], Any]
    options: Any = None
    threaded: bool = True


@dataclass(frozen=True)
class SessionRoute:
    method: str
    handler: Callable[[Session, Any], Any]  # may be a coroutine function
    options: Any = None


Route = DocumentRoute | SessionRoute

ROUTES: tuple[Route, ...] = (
    SessionRoute(lsp.INITIALIZE, lifecycle.initialize),
    SessionRoute(lsp.INITIALIZED, lifecycle.initialized),
    SessionRoute(lsp.SHUTDOWN, lifecycle.shutdown),
    SessionRoute(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION, configuration.did_change_configuration),
    SessionRoute(lsp.TEXT_DOCUMENT_DID_OPEN, text_sync.did_open),
    SessionRoute(lsp.TEXT_DOCUMENT_DID_CHANGE, text_sync.did_change),
    SessionRoute(lsp.TEXT_DOCUMENT_DID_SAVE, text_sync.did_save),
    SessionRoute(lsp.TEXT_DOCUMENT_DID_CLOSE, text_sync.did_close),
    SessionRoute(lsp.NOTEBOOK_DOCUMENT_DID_OPEN, notebook_sync.did_open),
    SessionRoute(lsp.NOTEBOOK_DOCUMENT_DID_CHANGE, notebook_sync.did_change),
    SessionRoute(lsp.NOTEBOOK_DOCUMENT_DID_SAVE, notebook_sync.did_save),
    SessionRoute(lsp.NOTEBOOK_DOCUMENT_DID_CLOSE, notebook_sync.did_close),
    DocumentRoute(lsp.TEXT_DOCUMENT_HOVER, hover.hover),
    DocumentRoute(lsp.TEXT_DOCUMENT_INLAY_HINT, inlay_hint.inlay_hint, inlay_hint.OPTIONS),
    SessionRoute(lsp.INLAY_HINT_RESOLVE, inlay_hint.resolve),
    DocumentRoute(lsp.TEXT_DOCUMENT_CODE_LENS, code_lens.code_lens, code_lens.OPTIONS),
    DocumentRoute(lsp.TEXT_DOCUMENT_CODE_ACTION, code_action.code_action, code_action.OPTIONS),
    SessionRoute(ir_view.METHOD, ir_view.ir_view),
    DocumentRoute(type_stability.METHOD, type_stability.type_stability),
    DocumentRoute(compiles.METHOD, compiles.compiles),
)

__all__ = ["ROUTES", "DocumentRoute", "Route", "SessionRoute"]
