"""The request table and the snapshot handlers, without a client: every method the server advertises
has exactly one handler, every handler module is in the table, and a document handler answers from
the snapshot it is given (a real DocumentSnapshot over a hand-made analysis) and nothing else."""

from __future__ import annotations

import asyncio
import collections
import pkgutil
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as lsp
from pygls.capabilities import ServerCapabilitiesBuilder
from pygls.exceptions import JsonRpcInvalidParams

from pyserver.analysis.model import FileResult, FunctionInfo, SignatureResult
from pyserver.lsp import requests
from pyserver.lsp.documents import DocumentSnapshot
from pyserver.lsp.requests import (
    ROUTES,
    DocumentRoute,
    SessionRoute,
    code_action,
    code_lens,
    compiles,
    hover,
    inlay_hint,
    type_stability,
)
from pyserver.lsp.server import create_server, handler_for
from pyserver.lsp.settings import Settings
from pyserver.lsp.views import AnalysedDocument

ROOT = Path(__file__).resolve().parents[2]
URI = "file:///tmp/snapshot_module.py"
SOURCE = """from numba import njit


@njit
def f(a, n):
    total = a[0] + n
    return total
"""
# What the capabilities say the server does -> the method that does it.
PROVIDERS = {
    "hover_provider": lsp.TEXT_DOCUMENT_HOVER,
    "inlay_hint_provider": lsp.TEXT_DOCUMENT_INLAY_HINT,
    "code_lens_provider": lsp.TEXT_DOCUMENT_CODE_LENS,
    "code_action_provider": lsp.TEXT_DOCUMENT_CODE_ACTION,
    "completion_provider": lsp.TEXT_DOCUMENT_COMPLETION,
    "definition_provider": lsp.TEXT_DOCUMENT_DEFINITION,
    "references_provider": lsp.TEXT_DOCUMENT_REFERENCES,
    "document_symbol_provider": lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
    "execute_command_provider": lsp.WORKSPACE_EXECUTE_COMMAND,
}


def route_methods() -> list[str]:
    return [route.method for route in ROUTES]


def test_each_method_has_exactly_one_route() -> None:
    counts = collections.Counter(route_methods())
    assert [method for method, count in counts.items() if count > 1] == []


def test_the_server_registers_exactly_the_table() -> None:
    server = create_server()
    assert sorted(server.protocol.fm.features) == sorted(route_methods())


def test_every_capability_the_server_advertises_has_its_handler() -> None:
    server = create_server()
    features = server.protocol.fm
    capabilities = ServerCapabilitiesBuilder(
        lsp.ClientCapabilities(),
        set({**features.features, **features.builtin_features}),
        features.feature_options,
        list(features.commands),
        lsp.TextDocumentSyncKind.Incremental,
    ).build()
    advertised = [method for name, method in PROVIDERS.items() if getattr(capabilities, name, None)]
    assert sorted(advertised) == sorted(
        [
            lsp.TEXT_DOCUMENT_HOVER,
            lsp.TEXT_DOCUMENT_INLAY_HINT,
            lsp.TEXT_DOCUMENT_CODE_LENS,
            lsp.TEXT_DOCUMENT_CODE_ACTION,
            lsp.WORKSPACE_EXECUTE_COMMAND,
        ]
    )
    for method in advertised:  # a route, or pygls's own handler: never both
        assert route_methods().count(method) + (method in features.builtin_features) == 1, method
    # pygls answers executeCommand; the server has no commands of its own (the lenses' are the client's).
    assert capabilities.execute_command_provider == lsp.ExecuteCommandOptions(commands=[])
    assert capabilities.inlay_hint_provider == lsp.InlayHintOptions(resolve_provider=True)
    assert route_methods().count(lsp.INLAY_HINT_RESOLVE) == 1


def test_every_custom_request_the_extension_sends_has_its_handler() -> None:
    sent = set()
    for source in (ROOT / "extension").glob("*.ts"):
        sent.update(re.findall(r"request<\w+>\(\s*\"(numbaLens/\w+)\"", source.read_text(encoding="utf-8")))
    assert sent == {"numbaLens/irView", "numbaLens/typeStability", "numbaLens/compiles"}
    for method in sent:
        assert route_methods().count(method) == 1, method


def test_every_request_module_is_in_the_table() -> None:
    handler_modules = {route.handler.__module__ for route in ROUTES}
    modules = {f"{requests.__name__}.{info.name}" for info in pkgutil.iter_modules(requests.__path__)}
    assert modules == handler_modules


def test_document_handlers_take_a_snapshot_and_session_handlers_the_session() -> None:
    for route in ROUTES:
        first = next(iter(route.handler.__annotations__.values()))
        if isinstance(route, DocumentRoute):
            assert first == "DocumentSnapshot | None", route.method
        else:
            assert isinstance(route, SessionRoute)
            assert first == "Session", route.method


# --- the dispatch: a document route hands its handler the snapshot the params name -------------------
class SessionDouble:
    def __init__(self) -> None:
        self.asked: list[str] = []

    def snapshot(self, uri: str) -> DocumentSnapshot | None:
        self.asked.append(uri)
        return DocumentSnapshot(uri, 3, SOURCE) if uri == URI else None


def test_a_document_route_gets_the_snapshot_of_the_document_in_its_params() -> None:
    seen: list[Any] = []
    route = DocumentRoute("test/method", lambda snapshot, params: seen.append(snapshot), threaded=False)
    session = SessionDouble()
    handle = handler_for(create_server(), session, route)  # type: ignore[arg-type]
    position = lsp.Position(0, 0)
    handle(lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=URI), position=position))
    custom = collections.namedtuple("custom", ["uri", "function"])
    handle(custom(uri=URI, function="f"))
    handle(custom(uri="file:///tmp/not_open.py", function="f"))
    handle({"no": "uri"})
    assert session.asked == [URI, URI, "file:///tmp/not_open.py"]
    assert [s.version if s is not None else None for s in seen] == [3, 3, None, None]


def test_a_threaded_document_route_snapshots_on_the_loop_and_answers_on_a_worker_thread() -> None:
    threads: dict[str, int] = {}

    class RecordingSession(SessionDouble):
        def snapshot(self, uri: str) -> DocumentSnapshot | None:
            threads["snapshot"] = threading.get_ident()
            return super().snapshot(uri)

    def handler(snapshot: DocumentSnapshot | None, params: Any) -> int | None:
        threads["handler"] = threading.get_ident()
        return snapshot.version if snapshot is not None else None

    server = create_server()
    handle = handler_for(server, RecordingSession(), DocumentRoute("test/method", handler))  # type: ignore[arg-type]

    async def ask() -> Any:
        threads["loop"] = threading.get_ident()
        return await handle({"uri": URI})

    try:
        assert asyncio.run(ask()) == 3
    finally:
        server.thread_pool.shutdown()
    assert threads["snapshot"] == threads["loop"] != threads["handler"]


# --- document handlers over a snapshot ------------------------------------------------------------------
def analysed(signatures: list[SignatureResult]) -> AnalysedDocument:
    info = FunctionInfo(
        path="/tmp/snapshot_module.py",
        name="f",
        line=5,
        end_line=7,
        decorator_line=4,
        kind="njit",
        params=["a", "n"],
        signatures=signatures,
    )
    return AnalysedDocument(
        URI, "/tmp/snapshot_module.py", SOURCE, 1, FileResult("/tmp/snapshot_module.py", functions=[info])
    )


RECORDED = SignatureResult(["array(float64, 1d, C)", "int64"], "recorded", return_type="float64", ok=True)


def snapshot(**fields: Any) -> DocumentSnapshot:
    return DocumentSnapshot(URI, 2, SOURCE, **fields)


def test_no_open_document_no_answer() -> None:
    position = lsp.Position(4, 4)
    document = lsp.TextDocumentIdentifier(uri=URI)
    assert hover.hover(None, lsp.HoverParams(document, position)) is None
    whole = lsp.Range(lsp.Position(0, 0), lsp.Position(7, 0))
    assert inlay_hint.inlay_hint(None, lsp.InlayHintParams(document, whole)) == []
    assert code_lens.code_lens(None, lsp.CodeLensParams(document)) == []
    with pytest.raises(JsonRpcInvalidParams):
        type_stability.type_stability(None, {"uri": URI})
    assert compiles.compiles(None, {"uri": URI, "function": "f"})["compiles"] == []


def test_hover_answers_from_the_snapshots_analysis() -> None:
    params = lsp.HoverParams(lsp.TextDocumentIdentifier(uri=URI), lsp.Position(4, 4))
    untyped = hover.hover(snapshot(), params)
    typed = hover.hover(snapshot(analysis=analysed([RECORDED])), params)
    assert untyped is not None and typed is not None
    assert typed.range == lsp.Range(lsp.Position(4, 4), lsp.Position(4, 5))
    assert "array(float64, 1d, C)" in typed.contents.value  # type: ignore[union-attr]
    assert "array(float64, 1d, C)" not in untyped.contents.value  # type: ignore[union-attr]
    busy = hover.hover(snapshot(analysis=analysed([RECORDED]), busy=True), params)
    assert busy is not None and "re-analysing" in busy.contents.value  # type: ignore[union-attr]


def test_settings_travel_in_the_snapshot() -> None:
    params = lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri=URI))
    document = analysed([RECORDED])
    assert code_lens.code_lens(snapshot(analysis=document), params) != []
    off = Settings(code_lens_enable=False)
    assert code_lens.code_lens(snapshot(analysis=document, settings=off), params) == []


def test_types_from_a_run_are_offered_as_a_rewrite_in_the_clients_encoding() -> None:
    params = lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri=URI),
        lsp.Range(lsp.Position(5, 0), lsp.Position(5, 0)),
        lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.RefactorRewrite]),
    )
    assert code_action.code_action(snapshot(), params) == []
    found = code_action.code_action(snapshot(analysis=analysed([RECORDED])), params)
    assert found and all(action.kind == lsp.CodeActionKind.RefactorRewrite for action in found)
    edits = [edit for action in found for edit in (action.edit.changes or {})[URI]]  # type: ignore[union-attr]
    assert any("float64[::1]" in edit.new_text for edit in edits)
