"""The Numba Lens language server: a pygls server that owns one `Session` and registers the handlers
of `pyserver.lsp.requests.ROUTES`. The handlers only translate between the protocol and the modules
beside them (hover, inlay hints, lenses, quick fixes) over the analysis engine, which runs the user's
code in its own worker process."""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO

from lsprotocol import types as lsp
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer

from pyserver import __version__
from pyserver.lsp import client, notebooks
from pyserver.lsp.documents import DocumentSnapshot
from pyserver.lsp.params import document_uri
from pyserver.lsp.requests import ROUTES, DocumentRoute, Route
from pyserver.lsp.session import Session
from pyserver.lsp.stdio import pipe_reader


class NumbaLensServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "numba-lens",
            __version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            notebook_document_sync=notebooks.SYNC_OPTIONS,
        )
        self.session = Session(self)

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio, the input read on the event loop (stdio.pipe_reader); pygls's own reader
        where the input is not a pipe."""
        if stdin is None or stdout is None or not self._serve_pipe(stdin, stdout):
            super().start_io(stdin, stdout)

    def _serve_pipe(self, stdin: BinaryIO, stdout: BinaryIO) -> bool:
        """Serve until the client exits or the input ends; False (nothing served) when `stdin` is not
        something asyncio can watch."""
        self._stop_event = stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout))
        served = False

        async def main() -> None:
            nonlocal served
            reader = await pipe_reader(stdin)
            if reader is None:
                return
            served = True
            await run_async(
                stop_event=stop_event,
                reader=reader,
                protocol=self.protocol,
                logger=logging.getLogger("pygls.server"),
                error_handler=self.report_server_error,
            )

        try:
            asyncio.run(main())
        except BrokenPipeError:
            logging.getLogger("pyserver.lsp").error("the connection to the client is lost: shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            if served:
                self.shutdown()
        return served

    def shutdown(self) -> None:
        """Stop reading without waiting for the reader thread, which may sit in a blocking read of a
        stdin the client never closes."""
        if self._stop_event is not None:
            self._stop_event.set()
        if self._thread_pool is not None:
            self._thread_pool.shutdown(wait=False, cancel_futures=True)

    def close_engine(self) -> None:
        """Stop the analysis worker; callable from any thread, also while an analysis runs."""
        self.session.close_engine()


def handler_for(server: LanguageServer, session: Session, route: Route) -> Callable[..., Any]:
    """The function pygls calls for `route`: it hands the route's handler the session or a snapshot."""
    if isinstance(route, DocumentRoute):
        route_handler = route.handler

        def document_handler(snapshot: DocumentSnapshot | None, params: Any) -> Any:
            if snapshot is not None and snapshot.cell is not None:
                return notebooks.in_cell(snapshot.cell, lambda moved: route_handler(snapshot, moved), params)
            return route_handler(snapshot, params)

        def snapshot_for(params: Any) -> DocumentSnapshot | None:
            uri = document_uri(params)
            return session.snapshot(uri) if uri is not None else None

        if not route.threaded:

            def on_document(params: Any) -> Any:
                return document_handler(snapshot_for(params), params)

            return on_document

        async def on_document_in_thread(params: Any) -> Any:
            # The snapshot is taken on the loop, where the session changes; the handler runs on a worker
            # thread, since parsing a large buffer must not stall the protocol.
            snapshot = snapshot_for(params)
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(server.thread_pool, document_handler, snapshot, params)

        return on_document_in_thread
    session_handler = route.handler
    if inspect.iscoroutinefunction(session_handler):

        async def on_session_async(params: Any) -> Any:
            return await session_handler(session, params)

        return on_session_async

    def on_session(params: Any) -> Any:
        return session_handler(session, params)

    return on_session


def register(server: NumbaLensServer, routes: Iterable[Route] = ROUTES) -> None:
    for route in routes:
        server.feature(route.method, route.options)(handler_for(server, server.session, route))


def create_server() -> NumbaLensServer:
    server = NumbaLensServer()
    register(server)
    return server


def install_client_logging(server: NumbaLensServer, level: int = logging.INFO) -> Callable[[], None]:
    """Send the package's log records to the client's output (window/logMessage)."""
    return client.install_client_logging(server.session.client, level)


__all__ = ["NumbaLensServer", "create_server", "handler_for", "install_client_logging", "register"]
