"""A real client for the real server: `python -m pyserver lsp` over stdio, driven by pytest-lsp's
pygls client. It records every publishDiagnostics (with a count per document, so a test can wait
for the *next* publish), every numbaLens/status notification and every progress report."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Union

import psutil
from lsprotocol import types as lsp
from pygls.protocol import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
    default_converter,
)
from pygls.uris import from_fs_path
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, LanguageClient

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
STARTUP_TIMEOUT = 120.0  # a cold worker imports Numba on a busy 2-core machine
ANALYSIS_TIMEOUT = 120.0


def copy_examples(target: Path, names: Iterable[str] | None = None) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for source in EXAMPLES.glob("*.py"):
        if names is None or source.name in names:
            shutil.copy(source, target / source.name)
    return target


def uri_of(path: Path) -> str:
    uri = from_fs_path(str(path))
    assert uri is not None
    return uri


class Session:
    """One server process and the client talking to it."""

    def __init__(self, client: LanguageClient, root: Path) -> None:
        self.client = client
        self.root = root
        self.publishes: dict[str, list[list[lsp.Diagnostic]]] = defaultdict(list)
        self.statuses: list[dict[str, Any]] = []
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self._changed = asyncio.Event()

    # --- process --------------------------------------------------------------------------------
    @property
    def process(self) -> asyncio.subprocess.Process:
        assert self.client._server is not None
        return self.client._server

    @property
    def pid(self) -> int:
        return self.process.pid

    def descendants(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def notify_changed(self) -> None:
        self._changed.set()

    async def wait_for(
        self, predicate: Any, timeout: float = ANALYSIS_TIMEOUT, what: str = "condition"
    ) -> Any:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout=min(remaining, 1.0))
            except asyncio.TimeoutError:
                pass

    # --- documents ------------------------------------------------------------------------------
    def uri(self, name: str) -> str:
        return uri_of(self.root / name)

    def publish_count(self, uri: str) -> int:
        return len(self.publishes[uri])

    def diagnostics(self, uri: str) -> list[lsp.Diagnostic]:
        return self.publishes[uri][-1] if self.publishes[uri] else []

    async def next_publish(
        self, uri: str, after: int, timeout: float = ANALYSIS_TIMEOUT
    ) -> list[lsp.Diagnostic]:
        await self.wait_for(lambda: self.publish_count(uri) > after, timeout, f"diagnostics of {uri}")
        return self.publishes[uri][after]

    async def open(self, name: str, text: str | None = None) -> list[lsp.Diagnostic]:
        """Open a document and return the diagnostics of its first analysis."""
        uri = self.uri(name)
        if uri in self.texts:  # already open: its latest diagnostics
            await self.wait_for(lambda: self.publish_count(uri) > 0, what=f"diagnostics of {uri}")
            return self.diagnostics(uri)
        if text is None:
            text = (self.root / name).read_text(encoding="utf-8")
        before = self.publish_count(uri)
        self.versions[uri] = 1
        self.texts[uri] = text
        self.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, text))
        )
        return await self.next_publish(uri, before)

    def change(self, name: str, text: str) -> None:
        """Replace the buffer's whole text (an incremental change covering the old text)."""
        uri = self.uri(name)
        old = self.texts[uri]
        lines = old.split("\n")
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(version=self.versions[uri], uri=uri),
                [
                    lsp.TextDocumentContentChangePartial(
                        range=lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines) - 1, len(lines[-1]))),
                        text=text,
                    )
                ],
            )
        )

    def save_nowait(self, name: str, text: str | None = None, write: bool = True) -> None:
        uri = self.uri(name)
        if text is not None:
            self.change(name, text)
        if write:
            (self.root / name).write_text(self.texts[uri], encoding="utf-8")
        self.client.text_document_did_save(lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri)))

    async def save(self, name: str, text: str | None = None) -> list[lsp.Diagnostic]:
        """Change (optionally), save, and return the diagnostics published for that save."""
        uri = self.uri(name)
        before = self.publish_count(uri)
        self.save_nowait(name, text)
        return await self.next_publish(uri, before)

    # --- requests -------------------------------------------------------------------------------
    async def hover(self, name: str, line: int, character: int) -> str | None:
        result = await self.client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(self.uri(name)), lsp.Position(line, character))
        )
        if result is None:
            return None
        contents = result.contents
        assert isinstance(contents, lsp.MarkupContent)
        return contents.value

    async def hover_word(self, name: str, line: int, word: str, occurrence: int = 0) -> str | None:
        """Hover the `occurrence`-th `word` on the 1-based source `line`."""
        text = self.texts[self.uri(name)].split("\n")[line - 1]
        matches = [m.start() for m in re.finditer(rf"\b{re.escape(word)}\b", text)]
        return await self.hover(name, line - 1, matches[occurrence] + 1)

    async def code_lenses(self, name: str) -> list[lsp.CodeLens]:
        return list(
            await self.client.text_document_code_lens_async(
                lsp.CodeLensParams(lsp.TextDocumentIdentifier(self.uri(name)))
            )
            or []
        )

    async def inlay_hints(self, name: str) -> list[lsp.InlayHint]:
        lines = self.texts[self.uri(name)].split("\n")
        return list(
            await self.client.text_document_inlay_hint_async(
                lsp.InlayHintParams(
                    lsp.TextDocumentIdentifier(self.uri(name)),
                    lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines), 0)),
                )
            )
            or []
        )

    async def code_actions(self, name: str, diagnostic: lsp.Diagnostic) -> list[lsp.CodeAction]:
        result = await self.client.text_document_code_action_async(
            lsp.CodeActionParams(
                lsp.TextDocumentIdentifier(self.uri(name)),
                diagnostic.range,
                lsp.CodeActionContext(diagnostics=[diagnostic], only=[lsp.CodeActionKind.QuickFix]),
            )
        )
        return [action for action in result or [] if isinstance(action, lsp.CodeAction)]

    async def ir_view(self, name: str, line: int, kind: str, signature: int | None = None) -> Any:
        params: dict[str, Any] = {"uri": self.uri(name), "line": line, "kind": kind}
        if signature is not None:
            params["signature"] = signature
        return await asyncio.wait_for(
            self.client.protocol.send_request_async("numbaLens/irView", params), 300
        )

    def apply(self, name: str, action: lsp.CodeAction) -> str:
        """Apply a code action's WorkspaceEdit to our copy of the buffer, as an editor would."""
        uri = self.uri(name)
        assert action.edit is not None and action.edit.changes is not None
        edits = action.edit.changes[uri]
        return apply_edits(self.texts[uri], edits)

    async def shutdown(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_session(), 60)
        finally:
            await self.client.stop()


def apply_edits(text: str, edits: list[lsp.TextEdit]) -> str:
    """Apply LSP text edits (UTF-16 positions; the test files are ASCII) from last to first."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def offset(position: lsp.Position) -> int:
        return offsets[position.line] + position.character

    ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
    for edit in ordered:
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def cell_text_change(
    notebook_uri: str, version: int, cell_uri: str, old_text: str, new_text: str
) -> lsp.DidChangeNotebookDocumentParams:
    """A notebook change (at `version`) that replaces one cell's whole text."""
    lines = old_text.split("\n")
    change = lsp.TextDocumentContentChangePartial(
        range=lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines) - 1, len(lines[-1]))), text=new_text
    )
    return lsp.DidChangeNotebookDocumentParams(
        notebook_document=lsp.VersionedNotebookDocumentIdentifier(version, notebook_uri),
        change=lsp.NotebookDocumentChangeEvent(
            cells=lsp.NotebookDocumentCellChanges(
                text_content=[
                    lsp.NotebookDocumentCellContentChanges(
                        document=lsp.VersionedTextDocumentIdentifier(version, cell_uri), changes=[change]
                    )
                ]
            )
        ),
    )


def json_converter() -> Any:
    """pygls' converter, except that custom params and results stay plain JSON (pygls would turn
    them into namedtuples and rename keys such as the "12" of a lineMap)."""
    converter = default_converter()
    for message_type in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(message_type, lambda obj, cls: cls(**obj))

    # lsprotocol takes every code action that has a `command` for a bare Command; only a Command's
    # `command` is a string.
    def code_action_or_command(obj: Any, _: type) -> Any:
        if isinstance(obj.get("command"), str):
            return converter.structure(obj, lsp.Command)
        return converter.structure(obj, lsp.CodeAction)

    converter.register_structure_hook(Union[lsp.Command, lsp.CodeAction], code_action_or_command)  # noqa: UP007
    return converter


def make_client(session_box: list[Session]) -> LanguageClient:
    client = LanguageClient(converter_factory=json_converter)
    for method, handler in DEFAULT_CLIENT_FEATURES.items():
        if method not in (lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,):
            client.feature(method)(handler)

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(ls: LanguageClient, params: lsp.PublishDiagnosticsParams) -> None:
        session = session_box[0]
        session.publishes[params.uri].append(list(params.diagnostics))
        session.notify_changed()

    @client.feature("numbaLens/status")
    def on_status(ls: LanguageClient, params: Any) -> None:
        session = session_box[0]
        session.statuses.append(params)
        session.notify_changed()

    @client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    def on_lens_refresh(ls: LanguageClient, params: None) -> None:
        return None

    @client.feature(lsp.WORKSPACE_INLAY_HINT_REFRESH)
    def on_hint_refresh(ls: LanguageClient, params: None) -> None:
        return None

    return client


def capabilities() -> lsp.ClientCapabilities:
    return lsp.ClientCapabilities(
        window=lsp.WindowClientCapabilities(work_done_progress=True),
        workspace=lsp.WorkspaceClientCapabilities(
            configuration=True,
            code_lens=lsp.CodeLensWorkspaceClientCapabilities(refresh_support=True),
            inlay_hint=lsp.InlayHintWorkspaceClientCapabilities(refresh_support=True),
        ),
        text_document=lsp.TextDocumentClientCapabilities(
            publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(
                related_information=True, code_description_support=True, data_support=True
            ),
            hover=lsp.HoverClientCapabilities(content_format=[lsp.MarkupKind.Markdown]),
        ),
    )


async def start_session(
    root: Path,
    *,
    trusted: bool | None = True,
    settings: dict[str, Any] | None = None,
    configuration: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> Session:
    box: list[Session] = []
    client = make_client(box)
    session = Session(client, root)
    box.append(session)
    if configuration is not None:
        client.set_configuration(configuration, section="numbaLens")
    process_env = dict(os.environ)
    process_env.update(env or {})
    process_env.setdefault("PYTHONUNBUFFERED", "1")
    await client.start_io(sys.executable, "-m", "pyserver", "lsp", cwd=str(ROOT), env=process_env)
    options: dict[str, Any] = {}
    if trusted is not None:
        options["trusted"] = trusted
    if settings is not None:
        options["settings"] = settings
    await asyncio.wait_for(
        client.initialize_session(
            lsp.InitializeParams(
                capabilities=capabilities(),
                root_uri=uri_of(root),
                workspace_folders=[lsp.WorkspaceFolder(uri_of(root), root.name)],
                initialization_options=options,
            )
        ),
        STARTUP_TIMEOUT,
    )
    return session


def first(diagnostics: list[lsp.Diagnostic], code: str) -> lsp.Diagnostic:
    matches = [d for d in diagnostics if d.code == code]
    assert matches, f"no {code} diagnostic in {[(d.code, d.message) for d in diagnostics]}"
    return matches[0]
