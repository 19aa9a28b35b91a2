"""What the server sends to the editor on its own initiative: diagnostics, the numbaLens/status
notification, work-done progress, refresh requests, messages and log records. Everything here runs on
the asyncio loop; other threads reach it through `Client.call_soon`."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

STATUS = "numbaLens/status"


class Client:
    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.loop: asyncio.AbstractEventLoop | None = None  # set once the protocol loop runs
        self._progress: dict[str, tuple[str, asyncio.Future[bool]]] = {}
        self._background: set[asyncio.Future[Any]] = set()

    # --- what the client can do ----------------------------------------------------------------------
    @property
    def encoding(self) -> str:
        kind = getattr(self.server.protocol.server_capabilities, "position_encoding", None)
        return str(getattr(kind, "value", kind) or "utf-16")

    def supports(self, *path: str) -> bool:
        node: Any = self.server.client_capabilities
        for name in path:
            node = getattr(node, name, None)
            if node is None:
                return False
        return bool(node)

    def call_soon(self, callback: Callable[..., object], *args: Any) -> None:
        """Run `callback` on the loop thread, from any thread; dropped once the loop is gone."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(callback, *args)

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run `work` on the loop, holding a reference until it ends (the loop keeps only weak ones)."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # --- notifications and requests ------------------------------------------------------------------
    def log(self, kind: lsp.MessageType, message: str) -> None:
        try:
            self.server.window_log_message(lsp.LogMessageParams(type=kind, message=message))
        except Exception:  # the client went away: nothing to report to
            pass

    def show_warning(self, message: str) -> None:
        self.server.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message))

    def status(
        self,
        state: str,
        counts: tuple[int, int, int] = (0, 0, 0),
        uri: str | None = None,
        message: str | None = None,
    ) -> None:
        errors, warnings, unknown = counts
        payload: dict[str, Any] = {
            "state": state,
            "errors": errors,
            "warnings": warnings,
            "typesUnknown": unknown,
        }
        if uri is not None:
            payload["uri"] = uri
        if message is not None:
            payload["message"] = message
        self.server.protocol.notify(STATUS, payload)

    def publish_diagnostics(self, uri: str, diagnostics: list[lsp.Diagnostic], version: int | None) -> None:
        self.server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def refresh(self, what: str) -> None:
        if what == "inlayHint" and self.supports("workspace", "inlay_hint", "refresh_support"):
            self.server.protocol.send_request(lsp.WORKSPACE_INLAY_HINT_REFRESH, None)
        if what == "codeLens" and self.supports("workspace", "code_lens", "refresh_support"):
            self.server.protocol.send_request(lsp.WORKSPACE_CODE_LENS_REFRESH, None)

    async def configuration(self, section: str, timeout_s: float) -> Sequence[Any] | None:
        """The client's values of a settings section (workspace/configuration), None if it cannot say."""
        if not self.supports("workspace", "configuration"):
            return None
        return await asyncio.wait_for(
            self.server.workspace_configuration_async(
                lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section=section)])
            ),
            timeout=timeout_s,
        )

    # --- work-done progress --------------------------------------------------------------------------
    def begin_progress(self, key: str, message: str) -> None:
        """Server-initiated work-done progress (when the client supports it), ended by end_progress."""
        if not self.supports("window", "work_done_progress"):
            return
        token = f"numba-lens-{uuid.uuid4()}"
        progress = self.server.work_done_progress

        async def begin() -> bool:
            try:
                await asyncio.wait_for(progress.create_async(token), timeout=5)
            except Exception:
                return False
            progress.begin(
                token, lsp.WorkDoneProgressBegin(title="Numba Lens", message=message, cancellable=False)
            )
            return True

        self._progress[key] = (token, asyncio.ensure_future(begin()))

    def end_progress(self, key: str) -> None:
        started = self._progress.pop(key, None)
        if started is None:
            return
        token, begun = started
        progress = self.server.work_done_progress

        async def end() -> None:
            if await begun:
                progress.end(token, lsp.WorkDoneProgressEnd())
            progress.tokens.pop(token, None)

        self.spawn(end())


class ClientLogHandler(logging.Handler):
    """Log records as window/logMessage, sent from the loop thread whatever thread logged them."""

    LEVELS = (
        (logging.ERROR, lsp.MessageType.Error),
        (logging.WARNING, lsp.MessageType.Warning),
        (logging.INFO, lsp.MessageType.Info),
        (0, lsp.MessageType.Log),
    )

    def __init__(self, client: Client) -> None:
        super().__init__()
        self.client = client

    def emit(self, record: logging.LogRecord) -> None:
        loop = self.client.loop
        if loop is None or loop.is_closed():
            return
        kind = next(kind for level, kind in self.LEVELS if record.levelno >= level)
        try:
            message = self.format(record)
            loop.call_soon_threadsafe(self.client.log, kind, message)
        except Exception:  # never let logging take the server down
            self.handleError(record)


def install_client_logging(client: Client, level: int = logging.INFO) -> Callable[[], None]:
    handler = ClientLogHandler(client)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.setLevel(level)
    package_logger = logging.getLogger("pyserver")
    package_logger.addHandler(handler)
    package_logger.setLevel(level)
    package_logger.propagate = False  # the client shows stderr too: say each thing once

    def remove() -> None:
        package_logger.removeHandler(handler)

    return remove
