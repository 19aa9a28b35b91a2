"""The server's state, and the only code that changes it: settings and trust, the analyses of the open
documents (scheduled per document, published as diagnostics), and the engine they run on. Requests
read a document through `Session.snapshot`, never through these dictionaries.

Threads: the session lives on the asyncio loop; analyses run on one engine thread (the engine serves
one caller at a time); anything another thread wants to send goes through the loop.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from pyserver.analysis.model import Diagnostic, FileResult, Range
from pyserver.lsp import convert
from pyserver.lsp.client import Client
from pyserver.lsp.documents import DocumentSnapshot
from pyserver.lsp.engine_host import Engine, EngineHost, NumbaUnavailable
from pyserver.lsp.notebooks import CellWindow, NotebookState
from pyserver.lsp.scheduler import AnalysisScheduler, Outcome
from pyserver.lsp.settings import Settings, parse_settings
from pyserver.lsp.views import AnalysedDocument

logger = logging.getLogger("pyserver.lsp")

T = TypeVar("T")

SETTINGS_SECTION = "numbaLens"


class Session:
    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.client = Client(server)
        self.settings = Settings()
        self.trusted = True
        self.root = os.getcwd()
        self.engines = EngineHost(on_numba_failed=self._numba_failed)
        self.engine_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="numba-lens-engine")
        self.scheduler: AnalysisScheduler[FileResult] = AnalysisScheduler(
            self.engine_executor,
            self.analyze_blocking,
            self.engines.cancel,
            self._on_start,
            self._on_outcome,
            self._on_idle,
        )
        self._analysed: dict[str, AnalysedDocument] = {}  # the latest analysis: what is published
        self._typed: dict[str, AnalysedDocument] = {}  # the latest one whose module loaded: types
        self._counts: dict[str, tuple[int, int, int]] = {}  # errors, warnings, functions without types
        self._announced: set[str] = set()
        self.notebooks = NotebookState()

    @property
    def closed(self) -> bool:
        return self.engines.closed

    # --- documents -----------------------------------------------------------------------------------
    def document_text(self, uri: str) -> str | None:
        """The editor's text of an open document; None when it is not open."""
        try:
            return self.server.workspace.get_text_document(uri).source
        except Exception:
            return None

    def snapshot(self, uri: str) -> DocumentSnapshot | None:
        """The open document `uri` and what the session knows about it now; None when it is not open."""
        window = self.notebooks.window(uri)
        if window is not None:
            return self._cell_snapshot(uri, window)
        try:
            document = self.server.workspace.get_text_document(uri)
            text = document.source
        except Exception:
            return None
        return DocumentSnapshot(
            uri=uri,
            version=document.version,
            text=text,
            analysis=self._typed.get(uri),
            latest=self._analysed.get(uri),
            settings=self.settings,
            encoding=self.client.encoding,
            trusted=self.trusted,
            busy=self.scheduler.busy(uri),
            numba_unavailable=self.engines.numba_unavailable,
        )

    def _cell_snapshot(self, uri: str, window: CellWindow) -> DocumentSnapshot | None:
        """A notebook cell: its notebook's module, analyses and state."""
        module = self.notebooks.module(window.notebook_uri)
        if module is None:
            return None
        notebook = self.server.workspace.get_notebook_document(notebook_uri=window.notebook_uri)
        return DocumentSnapshot(
            uri=uri,
            version=notebook.version if notebook is not None else None,
            text=module.source,
            analysis=self._typed.get(window.notebook_uri),
            latest=self._analysed.get(window.notebook_uri),
            settings=self.settings,
            encoding=self.client.encoding,
            trusted=self.trusted,
            busy=self.scheduler.busy(window.notebook_uri),
            numba_unavailable=self.engines.numba_unavailable,
            cell=window,
        )

    def notebook_changed(self, notebook_uri: str, delay_s: float = 0.0) -> None:
        """A notebook opened or changed: rebuild its module, clear what its changed cells showed, and
        analyse it."""
        rebuilt = self.notebooks.rebuild(self.server.workspace, notebook_uri)
        if rebuilt is None:
            return
        for cell_uri in rebuilt[1]:
            self.client.publish_diagnostics(cell_uri, [], None)
        self.request_analysis(notebook_uri, delay_s)

    def close_notebook(self, notebook_uri: str) -> None:
        self.scheduler.forget(notebook_uri)
        self._analysed.pop(notebook_uri, None)
        self._typed.pop(notebook_uri, None)
        self._counts.pop(notebook_uri, None)
        for cell_uri in self.notebooks.close(notebook_uri):
            self.client.publish_diagnostics(cell_uri, [], None)

    def close_document(self, uri: str) -> None:
        self.scheduler.forget(uri)
        self._analysed.pop(uri, None)
        self._typed.pop(uri, None)
        self._counts.pop(uri, None)
        self.client.publish_diagnostics(uri, [], None)

    # --- settings and trust --------------------------------------------------------------------------
    async def pull_settings(self) -> None:
        try:
            values = await self.client.configuration(SETTINGS_SECTION, timeout_s=10)
        except Exception as exc:
            logger.warning("could not read the numbaLens settings: %s", exc)
            return
        if values:
            self.apply_settings(parse_settings(values[0], self.settings, logger.warning))

    def apply_settings(self, new: Settings) -> None:
        old, self.settings = self.settings, new
        if old == new:
            return
        logger.info("settings: %s", new)
        if old.severity != new.severity or old.type_hints != new.type_hints:
            for uri in list(self._analysed):
                self.publish(uri)
        if old.engine_key() != new.engine_key():
            for uri in list(self._analysed):  # re-analyse with the new time-out / signature files
                self.request_analysis(uri)
        if (old.inlay_variable_types, old.inlay_return_types, old.inlay_max_length) != (
            new.inlay_variable_types,
            new.inlay_return_types,
            new.inlay_max_length,
        ):
            self.client.refresh("inlayHint")
        if old.code_lens_enable != new.code_lens_enable:
            self.client.refresh("codeLens")

    def announce_once(self, key: str, state: str, message: str, show: bool) -> None:
        if key in self._announced:
            return
        self._announced.add(key)
        if show:
            self.client.show_warning(message)
        logger.warning("%s", message)
        self.status(state, message=message)

    def status(self, state: str, uri: str | None = None, message: str | None = None) -> None:
        counts = self._counts.get(uri, (0, 0, 0)) if uri else (0, 0, 0)
        self.client.status(state, counts, uri, message)

    def _numba_failed(self, message: str) -> None:  # on the probe's thread
        text = f"Numba Lens cannot analyse: {message}"
        self.client.call_soon(self.announce_once, "failed", "failed", text, False)

    # --- the engine ----------------------------------------------------------------------------------
    def analyze_blocking(self, uri: str, source: str) -> FileResult:
        """One analysis, on the engine thread."""
        return self.engines.analyze(uri, source, self.settings, self.root)

    async def run_on_engine(self, work: Callable[[Engine], T]) -> T:
        """`work` on the engine thread, between analyses, once a usable Numba is known."""

        def run() -> T:
            self.engines.check_environment()
            return work(self.engines.engine(self.settings, self.root))

        return await self.scheduler.run_exclusive(run)

    def close_engine(self) -> None:
        """Stop the worker; callable from any thread, also while an analysis runs."""
        self.engines.close()

    # --- analyses ------------------------------------------------------------------------------------
    def request_analysis(self, uri: str, delay_s: float = 0.0) -> None:
        if self.notebooks.is_notebook(uri):
            self._request_notebook_analysis(uri, delay_s)
            return
        if (
            not self.trusted
            or not uri.startswith("file:")
            or not uri.endswith((".py", ".pyw"))
            or self.closed
        ):
            return
        if self.engines.numba_unavailable is not None:
            return
        try:
            document = self.server.workspace.get_text_document(uri)
        except Exception:
            return
        self.scheduler.schedule(uri, document.source, delay_s, tag=document.version)

    def _request_notebook_analysis(self, uri: str, delay_s: float) -> None:
        module = self.notebooks.module(uri)
        if not self.trusted or not uri.startswith("file:") or self.closed or module is None:
            return
        if self.engines.numba_unavailable is not None:
            return
        notebook = self.server.workspace.get_notebook_document(notebook_uri=uri)
        version = notebook.version if notebook is not None else None
        self.scheduler.schedule(uri, module.source, delay_s, tag=version)

    def _on_start(self, uri: str, generation: int) -> None:
        self.status("analyzing", uri)
        self.client.begin_progress(uri, f"analysing {os.path.basename(to_fs_path(uri) or uri)}")

    def _on_idle(self, uri: str, generation: int) -> None:
        self.client.end_progress(uri)
        if not self.scheduler.busy(uri) or self.scheduler.is_current(uri, generation):
            self.status("idle", uri)

    def _on_outcome(self, outcome: Outcome[FileResult]) -> None:
        uri = outcome.uri
        path = to_fs_path(uri) or uri
        version = outcome.tag if isinstance(outcome.tag, int) else None
        result = outcome.result
        if outcome.error is not None or result is None:
            error = outcome.error
            if isinstance(error, NumbaUnavailable):
                result = FileResult(path)
            else:
                logger.error("analysis of %s failed inside Numba Lens: %r", path, error, exc_info=error)
                result = FileResult(
                    path,
                    diagnostics=[
                        Diagnostic(
                            path,
                            Range.of(0, 0, 0, 0),
                            "error",
                            "analysis-failed",
                            f"Numba Lens could not analyse this file (internal error: {error!r}); "
                            "see the server log. The next save retries.",
                        )
                    ],
                )
        if result.status == "cancelled":
            logger.info("analysis of %s was cancelled; keeping the previous result", path)
            return
        analysed = AnalysedDocument(uri, path, outcome.source, version, result)
        self._analysed[uri] = analysed
        if result.status != "failed" or uri not in self._typed:
            self._typed[uri] = analysed
        self.publish(uri)
        self._reanalyse_callees(uri, result.callers_changed)

    def _reanalyse_callees(self, uri: str, paths: list[str]) -> None:
        """Open documents whose jitted functions this file's callers now give other argument types."""
        for path in paths:
            for other in list(self.server.workspace.text_documents):
                if other != uri and convert.same_path(to_fs_path(other) or other, path):
                    logger.info("re-analysing %s: its callers in %s pass new argument types", other, uri)
                    self.request_analysis(other)

    def publish(self, uri: str) -> None:
        analysed = self._analysed.get(uri)
        if analysed is None:
            if self.notebooks.is_notebook(uri):
                self._publish_cells(uri, [], None)
            return
        published = convert.document_diagnostics(analysed, self.settings, self.client.encoding)
        if self.notebooks.is_notebook(uri):
            self._publish_cells(uri, published, analysed.version)
        errors = sum(1 for d in published if d.severity == lsp.DiagnosticSeverity.Error)
        warnings = sum(1 for d in published if d.severity == lsp.DiagnosticSeverity.Warning)
        loaded = analysed.result.status != "failed"  # a module that did not load has no types at all
        unknown = sum(1 for f in analysed.result.functions if not f.signatures) if loaded else 0
        self._counts[uri] = (errors, warnings, unknown)
        if not self.notebooks.is_notebook(uri):
            self.client.publish_diagnostics(uri, published, analysed.version)
        self.client.refresh("codeLens")
        self.client.refresh("inlayHint")

    def _publish_cells(self, uri: str, published: list[lsp.Diagnostic], version: int | None) -> None:
        """A notebook's diagnostics, each on its cell; a cell without any now gets an empty list."""
        for cell_uri, diagnostics in self.notebooks.split(uri, published).items():
            self.client.publish_diagnostics(cell_uri, diagnostics, None)
