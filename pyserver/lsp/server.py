"""The Numba Lens language server: pygls handlers that only translate between the protocol and the
modules beside this one (scheduling, hover, inlay hints, lenses, quick fixes) over the analysis
engine, which runs the user's code in its own worker process.

Threads: pygls handlers run on the asyncio loop; every engine call runs on one engine thread (the
engine serves one caller at a time); anything another thread wants to send goes through the loop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams, JsonRpcServerError
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from pyserver import __version__
from pyserver.analysis.api import MAIN_BLOCK_REASON, may_make_jitted
from pyserver.analysis.model import Diagnostic, FileResult, Range
from pyserver.lsp import actions, convert, hover, inlay, lenses, stability
from pyserver.lsp.environment import NumbaCheck, check_numba
from pyserver.lsp.scheduler import AnalysisScheduler, Outcome
from pyserver.lsp.settings import Settings, parse_settings
from pyserver.lsp.text import client_to_index, index_to_client, line_at
from pyserver.lsp.views import (
    AnalysedDocument,
    cached_lines,
    discover,
    function_views,
    view_at,
)

logger = logging.getLogger("pyserver.lsp")

STATUS = "numbaLens/status"
IR_VIEW = "numbaLens/irView"
IR_KINDS = ("types", "numba_ir", "llvm", "asm")
# JSON-RPC server-error codes of the irView request.
IR_ERROR_UNAVAILABLE = -32001
IR_ERROR_FAILED = -32002
FIXABLE_CODES = ("untyped-variable", "no-signature", "deprecation")
RECORD_COMMAND = "numbaLens.recordSignaturesInTerminal"  # implemented by the client


class Engine(Protocol):
    def analyze(self, path: str | Path, source: str | None = None) -> FileResult: ...
    def ir_view(self, path: Any, source: Any, function: str, signature_index: int, kind: str) -> Any: ...
    def cancel(self) -> None: ...
    def close(self) -> None: ...


def plain(value: Any) -> Any:
    """pygls hands custom-method params over as namedtuples; the handlers want JSON values."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


class NumbaUnavailable(Exception):
    """No analysis can run: Numba is missing or too old in this interpreter."""


class ClientLogHandler(logging.Handler):
    """Log records as window/logMessage, sent from the loop thread whatever thread logged them."""

    LEVELS = (
        (logging.ERROR, lsp.MessageType.Error),
        (logging.WARNING, lsp.MessageType.Warning),
        (logging.INFO, lsp.MessageType.Info),
        (0, lsp.MessageType.Log),
    )

    def __init__(self, server: NumbaLensServer) -> None:
        super().__init__()
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        loop = self.server.loop
        if loop is None or loop.is_closed():
            return
        kind = next(kind for level, kind in self.LEVELS if record.levelno >= level)
        try:
            message = self.format(record)
            loop.call_soon_threadsafe(self.server.log_to_client, kind, message)
        except Exception:  # never let logging take the server down
            self.handleError(record)


class NumbaLensServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "numba-lens", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental
        )
        self.settings = Settings()
        self.trusted = True
        self.root = os.getcwd()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.numba: NumbaCheck | None = None
        self.engine: Engine | None = None
        self._engine_key: object = None
        self._engine_guard = threading.Lock()
        self._numba_thread: threading.Thread | None = None
        self._numba_ready = threading.Event()
        self.engine_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="numba-lens-engine")
        self.scheduler: AnalysisScheduler[FileResult] = AnalysisScheduler(
            self.engine_executor,
            self._analyze_blocking,
            self._cancel_in_flight,
            self._on_start,
            self._on_outcome,
            self._on_idle,
        )
        self.analysed: dict[str, AnalysedDocument] = {}  # the latest analysis: what is published
        self.typed: dict[str, AnalysedDocument] = {}  # the latest one whose module loaded: types
        self.counts: dict[str, tuple[int, int, int]] = {}
        self._progress: dict[str, tuple[str, asyncio.Future[bool]]] = {}
        self._announced: set[str] = set()
        self._background: set[asyncio.Future[None]] = set()
        self.closed = False

    def shutdown(self) -> None:
        """Stop reading without waiting for the reader thread, which may sit in a blocking read of a
        stdin the client never closes."""
        if self._stop_event is not None:
            self._stop_event.set()
        if self._thread_pool is not None:
            self._thread_pool.shutdown(wait=False, cancel_futures=True)

    # --- plumbing --------------------------------------------------------------------------------
    def log_to_client(self, kind: lsp.MessageType, message: str) -> None:
        try:
            self.window_log_message(lsp.LogMessageParams(type=kind, message=message))
        except Exception:  # the client went away: nothing to report to
            pass

    def status(self, state: str, uri: str | None = None, message: str | None = None) -> None:
        errors, warnings, unknown = self.counts.get(uri, (0, 0, 0)) if uri else (0, 0, 0)
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
        self.protocol.notify(STATUS, payload)

    @property
    def encoding(self) -> str:
        kind = getattr(self.protocol.server_capabilities, "position_encoding", None)
        return str(getattr(kind, "value", kind) or "utf-16")

    def document_source(self, uri: str) -> str | None:
        try:
            return self.workspace.get_text_document(uri).source
        except Exception:
            return None

    def client_supports(self, *path: str) -> bool:
        node: Any = self.client_capabilities
        for name in path:
            node = getattr(node, name, None)
            if node is None:
                return False
        return bool(node)

    # --- settings and trust ------------------------------------------------------------------------
    async def pull_settings(self) -> None:
        if not self.client_supports("workspace", "configuration"):
            return
        try:
            values = await asyncio.wait_for(
                self.workspace_configuration_async(
                    lsp.ConfigurationParams(items=[lsp.ConfigurationItem(section="numbaLens")])
                ),
                timeout=10,
            )
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
            for uri in list(self.analysed):
                self.publish(uri)
        if old.engine_key() != new.engine_key():
            for uri in list(self.analysed):  # re-analyse with the new time-out / signature files
                self.request_analysis(uri)
        if (old.inlay_variable_types, old.inlay_return_types, old.inlay_max_length) != (
            new.inlay_variable_types,
            new.inlay_return_types,
            new.inlay_max_length,
        ):
            self.refresh("inlayHint")
        if old.code_lens_enable != new.code_lens_enable:
            self.refresh("codeLens")

    def refresh(self, what: str) -> None:
        if what == "inlayHint" and self.client_supports("workspace", "inlay_hint", "refresh_support"):
            self.protocol.send_request(lsp.WORKSPACE_INLAY_HINT_REFRESH, None)
        if what == "codeLens" and self.client_supports("workspace", "code_lens", "refresh_support"):
            self.protocol.send_request(lsp.WORKSPACE_CODE_LENS_REFRESH, None)

    def announce_once(self, key: str, state: str, message: str, show: bool) -> None:
        if key in self._announced:
            return
        self._announced.add(key)
        if show:
            self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message))
        logger.warning("%s", message)
        self.status(state, message=message)

    def start_environment_check(self) -> None:
        """Probe Numba in a child interpreter, in parallel with the first analysis's worker start."""
        with self._engine_guard:
            if self._numba_thread is not None:
                return
            self._numba_thread = threading.Thread(
                target=self._check_numba, name="numba-lens-probe", daemon=True
            )
        self._numba_thread.start()

    def _check_numba(self) -> None:
        started = time.perf_counter()
        try:
            self.numba = check_numba()
        finally:
            self._numba_ready.set()
        logger.info("%s (checked in %.0f ms)", self.numba.message, (time.perf_counter() - started) * 1000)
        if not self.numba.ok and self.loop is not None:
            message = f"Numba Lens cannot analyse: {self.numba.message}"
            self.loop.call_soon_threadsafe(self.announce_once, "failed", "failed", message, False)

    def check_environment(self, wait: bool = True) -> None:
        """Raise NumbaUnavailable once the probe found no usable Numba (waiting for it if asked)."""
        self.start_environment_check()
        if wait:
            self._numba_ready.wait(timeout=180)
        if self.numba is not None and not self.numba.ok:
            raise NumbaUnavailable(self.numba.message)

    # --- the engine (engine thread) ------------------------------------------------------------------
    def _engine(self) -> Engine:
        key = self.settings.engine_key()
        with self._engine_guard:
            if self.closed:
                raise NumbaUnavailable("the server is shutting down")
            if self.engine is not None and self._engine_key != key:
                self.engine.close()
                self.engine = None
            if self.engine is None:
                from pyserver.analysis.engine import AnalysisEngine

                signature_files = [str(Path(self.root, f)) for f in self.settings.signature_files]
                self.engine = AnalysisEngine(
                    self.root,
                    timeout_s=self.settings.timeout_s,
                    signature_files=signature_files,
                    loading=self.settings.module_loading,
                    trusted=True,
                    log=lambda text: logger.info("engine: %s", text),
                )
                self._engine_key = key
            return self.engine

    def _analyze_blocking(self, uri: str, source: str) -> FileResult:
        path = to_fs_path(uri) or uri
        # may_make_jitted first: it is a substring test for any text that names numba, where discover
        # would parse the whole buffer (and the worker parses it anyway).
        if not may_make_jitted(source) and not discover(source):
            # Nothing jitted here: nothing to check, and no reason to run the module at all.
            return FileResult(path)
        self.check_environment(wait=False)
        result = self._engine().analyze(path, source)
        # A result computed without a usable Numba is noise: the probe's verdict decides.
        self.check_environment(wait=True)
        return result

    def _cancel_in_flight(self) -> None:
        engine = self.engine
        if engine is not None:
            try:
                engine.cancel()
            except Exception as exc:
                logger.warning("cancelling the analysis in flight failed: %s", exc)

    def close_engine(self) -> None:
        """Stop the worker; callable from any thread, also while an analysis runs."""
        with self._engine_guard:
            self.closed = True
            engine, self.engine = self.engine, None
        if engine is not None:
            try:
                engine.cancel()
            except Exception:
                pass
            try:
                engine.close()
            except Exception as exc:
                logger.warning("closing the analysis engine failed: %s", exc)

    # --- analyses ------------------------------------------------------------------------------------
    def request_analysis(self, uri: str, delay_s: float = 0.0) -> None:
        if (
            not self.trusted
            or not uri.startswith("file:")
            or not uri.endswith((".py", ".pyw"))
            or self.closed
        ):
            return
        if self.numba is not None and not self.numba.ok:
            return
        try:
            document = self.workspace.get_text_document(uri)
        except Exception:
            return
        self.scheduler.schedule(uri, document.source, delay_s, tag=document.version)

    def begin_progress(self, key: str, message: str) -> None:
        """Server-initiated work-done progress (when the client supports it), ended by end_progress."""
        if not self.client_supports("window", "work_done_progress"):
            return
        token = f"numba-lens-{uuid.uuid4()}"

        async def begin() -> bool:
            try:
                await asyncio.wait_for(self.work_done_progress.create_async(token), timeout=5)
            except Exception:
                return False
            self.work_done_progress.begin(
                token, lsp.WorkDoneProgressBegin(title="Numba Lens", message=message, cancellable=False)
            )
            return True

        self._progress[key] = (token, asyncio.ensure_future(begin()))

    def end_progress(self, key: str) -> None:
        progress = self._progress.pop(key, None)
        if progress is None:
            return
        token, begun = progress

        async def end() -> None:
            if await begun:
                self.work_done_progress.end(token, lsp.WorkDoneProgressEnd())
            self.work_done_progress.tokens.pop(token, None)

        task = asyncio.ensure_future(end())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _on_start(self, uri: str, generation: int) -> None:
        self.status("analyzing", uri)
        self.begin_progress(uri, f"analysing {os.path.basename(to_fs_path(uri) or uri)}")

    def _on_idle(self, uri: str, generation: int) -> None:
        self.end_progress(uri)
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
        self.analysed[uri] = analysed
        if result.status != "failed" or uri not in self.typed:
            self.typed[uri] = analysed
        self.publish(uri)
        self._reanalyse_callees(uri, result.callers_changed)

    def _reanalyse_callees(self, uri: str, paths: list[str]) -> None:
        """Open documents whose jitted functions this file's callers now give other argument types."""
        for path in paths:
            for other in list(self.workspace.text_documents):
                if other != uri and convert.same_path(to_fs_path(other) or other, path):
                    logger.info("re-analysing %s: its callers in %s pass new argument types", other, uri)
                    self.request_analysis(other)

    def publish(self, uri: str) -> None:
        analysed = self.analysed.get(uri)
        if analysed is None:
            return

        def source_of(path: str) -> str | None:
            if convert.same_path(path, analysed.path):
                return analysed.source
            try:
                return Path(path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                return None

        ranges = convert.RangeConverter(source_of, self.encoding)
        published = convert.publishable(
            analysed.path, analysed.result.diagnostics, self.settings.severity, ranges
        )
        published += not_run_hints(
            analysed.path, analysed.source, analysed.result, self.settings.severity, ranges
        )
        if self.settings.type_hints:  # issue 16: type-instability hints, off by default
            published += convert.type_hint_diagnostics(analysed, self.settings.severity, ranges)
        errors = sum(1 for d in published if d.severity == lsp.DiagnosticSeverity.Error)
        warnings = sum(1 for d in published if d.severity == lsp.DiagnosticSeverity.Warning)
        loaded = analysed.result.status != "failed"  # a module that did not load has no types at all
        unknown = sum(1 for f in analysed.result.functions if not f.signatures) if loaded else 0
        self.counts[uri] = (errors, warnings, unknown)
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=published, version=analysed.version)
        )
        self.refresh("codeLens")
        self.refresh("inlayHint")

    # --- IR views --------------------------------------------------------------------------------------
    async def ir_view(self, params: Any) -> dict[str, Any]:
        params = plain(params)
        if not isinstance(params, dict):
            raise JsonRpcInvalidParams("numbaLens/irView takes an object")
        uri, line, kind = params.get("uri"), params.get("line"), params.get("kind")
        signature = params.get("signature") or 0
        if not isinstance(uri, str) or not isinstance(line, int) or kind not in IR_KINDS:
            raise JsonRpcInvalidParams(
                f"numbaLens/irView needs uri, line (0-based) and kind in {IR_KINDS}; got {params!r}"
            )
        if not isinstance(signature, int) or signature < 0:
            raise JsonRpcInvalidParams("signature must be a non-negative index")
        if not self.trusted:
            raise JsonRpcServerError(
                "IR views compile your code, and this workspace is not trusted.", IR_ERROR_UNAVAILABLE
            )
        source = self.document_source(uri)
        path = to_fs_path(uri) or uri
        if source is None:
            try:
                source = Path(path).read_text(encoding="utf-8")
            except OSError as exc:
                raise JsonRpcInvalidParams(f"cannot read {path}: {exc}") from exc
        from pyserver.analysis.api import jitted_function_at

        function = jitted_function_at(list(discover(source)), line + 1)
        if function is None:
            raise JsonRpcServerError(
                f"no jitted function at line {line + 1} (or the file does not parse)", IR_ERROR_UNAVAILABLE
            )

        def run() -> Any:
            self.check_environment()
            return self._engine().ir_view(path, source, function.name, signature, kind)

        from pyserver.analysis.engine import AnalysisUnavailable

        progress_key = f"ir-view-{uuid.uuid4()}"
        self.begin_progress(progress_key, f"compiling {function.name} ({kind.replace('_', ' ')})")
        try:
            view = await self.scheduler.run_exclusive(run)
        except (NumbaUnavailable, AnalysisUnavailable) as exc:
            raise JsonRpcServerError(str(exc), IR_ERROR_UNAVAILABLE) from exc
        except (ValueError, KeyError, IndexError, LookupError) as exc:
            raise JsonRpcServerError(f"{function.name}: {exc}", IR_ERROR_UNAVAILABLE) from exc
        except Exception as exc:
            logger.exception("IR view of %s failed", function.name)
            raise JsonRpcServerError(
                f"{function.name}: {type(exc).__name__}: {exc}", IR_ERROR_FAILED
            ) from exc
        finally:
            self.end_progress(progress_key)
        return {
            "text": view.text,
            "language": view.language,
            "function": view.function,
            "signature": view.signature,
            "lineMap": {str(k): list(v) for k, v in view.line_map.items()},
        }

    def pin_types_actions(self, uri: str, source: str, line: int) -> list[lsp.CodeAction]:
        """Types known only from a run, the cache or a caller: offer to write them into the source."""
        view = view_at(function_views(source, self.typed.get(uri)), line)
        if view is None or view.info is None or view.current.annotations or view.current.signatures:
            return []
        borrowed = [s.args for s in view.info.signatures if s.source in ("recorded", "cache", "caller")]
        if not borrowed:
            return []
        return [
            lsp.CodeAction(
                title=fix.title,
                kind=lsp.CodeActionKind.RefactorRewrite,
                edit=lsp.WorkspaceEdit(changes={uri: self.text_edits(source, fix.edits)}),
            )
            for fix in actions.pin_types_fixes(source, view.current.name, borrowed)
        ]

    def text_edits(self, source: str, edits: list[actions.Edit]) -> list[lsp.TextEdit]:
        return [
            lsp.TextEdit(
                range=lsp.Range(
                    self.to_client(source, edit.line, edit.col),
                    self.to_client(source, edit.end_line, edit.end_col),
                ),
                new_text=edit.new_text,
            )
            for edit in edits
        ]

    # --- position helpers ------------------------------------------------------------------------------
    def to_index(self, source: str, position: lsp.Position) -> int:
        return client_to_index(
            line_at(cached_lines(source), position.line), position.character, self.encoding
        )

    def to_client(self, source: str, line: int, index: int) -> lsp.Position:
        return lsp.Position(line, index_to_client(line_at(cached_lines(source), line), index, self.encoding))

    def load_failed(self, uri: str) -> bool:
        latest = self.analysed.get(uri)
        return latest is not None and latest.result.status == "failed"

    def hover_context(self, uri: str) -> hover.HoverContext:
        unavailable = None
        if self.numba is not None and not self.numba.ok:
            unavailable = self.numba.message
        return hover.HoverContext(self.trusted, unavailable, self.scheduler.busy(uri), self.load_failed(uri))


NOT_RUN = "not-run"  # the code of the faded hints on top-level statements the analysis did not run (codes.py)


def not_run_hints(
    path: str, source: str, result: FileResult, overrides: Any, ranges: convert.RangeConverter
) -> list[lsp.Diagnostic]:
    """The top-level statements definitions-only loading did not run, faded (Unnecessary) with a hint
    that says why; `"severity": {"not-run": "off"}` hides them."""
    if overrides.get(NOT_RUN, "hint") == "off":
        return []
    lines = source.splitlines() or [""]
    hints = []
    for skipped in result.skipped:
        if skipped.reason == MAIN_BLOCK_REASON:
            continue  # never run in any mode, as every Python user expects: not worth fading
        end = min(max(skipped.end_line, skipped.line), len(lines)) - 1
        hints.append(
            lsp.Diagnostic(
                range=ranges.range(path, Range.of(skipped.line - 1, 0, end, len(lines[end]))),
                message=(
                    f"Not run by Numba Lens's analysis: {skipped.reason}. Only the top-level statements that "
                    'defining the jitted functions needs run (numbaLens.moduleLoading: "definitions").'
                ),
                severity=lsp.DiagnosticSeverity.Hint,
                code=NOT_RUN,
                source="numba-lens",
                tags=[lsp.DiagnosticTag.Unnecessary],
            )
        )
    return hints


def create_server() -> NumbaLensServer:
    server = NumbaLensServer()
    register_features(server)
    return server


def register_features(server: NumbaLensServer) -> None:
    @server.feature(lsp.INITIALIZE)
    def initialize(ls: NumbaLensServer, params: lsp.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()
        options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        trusted = options.get("trusted", True)
        ls.trusted = trusted if isinstance(trusted, bool) else True
        ls.settings = parse_settings(options.get("settings"), ls.settings, logger.warning)
        if params.workspace_folders:
            ls.root = to_fs_path(params.workspace_folders[0].uri) or ls.root
        elif params.root_uri:
            ls.root = to_fs_path(params.root_uri) or ls.root
        elif params.root_path:
            ls.root = params.root_path
        if "trusted" not in options:
            logger.info("the client did not say whether the workspace is trusted: assuming it is")

    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: NumbaLensServer, params: lsp.InitializedParams) -> None:
        logger.info("Numba Lens %s, workspace %s, trusted: %s", __version__, ls.root, ls.trusted)
        if not ls.trusted:
            ls.announce_once(
                "untrusted",
                "untrusted",
                "Numba Lens: this workspace is not trusted, so none of its code is run: no Numba "
                "diagnostics, types or IR views. Trust the workspace to enable them.",
                show=True,
            )
            return
        ls.start_environment_check()
        await ls.pull_settings()

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: NumbaLensServer, params: lsp.DidChangeConfigurationParams) -> None:
        # Applied before the next message is handled when the client pushes the values.
        pushed = params.settings
        if isinstance(pushed, dict) and isinstance(pushed.get("numbaLens"), dict):
            ls.apply_settings(parse_settings(pushed["numbaLens"], ls.settings, logger.warning))
        else:
            task = asyncio.ensure_future(ls.pull_settings())
            ls._background.add(task)
            task.add_done_callback(ls._background.discard)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: NumbaLensServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.request_analysis(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: NumbaLensServer, params: lsp.DidChangeTextDocumentParams) -> None:
        if ls.settings.analyze_on_type:
            ls.request_analysis(params.text_document.uri, ls.settings.analyze_on_type_delay_ms / 1000)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: NumbaLensServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.request_analysis(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: NumbaLensServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.scheduler.forget(uri)
        ls.analysed.pop(uri, None)
        ls.typed.pop(uri, None)
        ls.counts.pop(uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @server.thread()  # parsing a large buffer must not stall the protocol loop
    def on_hover(ls: NumbaLensServer, params: lsp.HoverParams) -> lsp.Hover | None:
        uri = params.text_document.uri
        source = ls.document_source(uri)
        if source is None:
            return None
        col = ls.to_index(source, params.position)
        answer = hover.hover(
            source, ls.typed.get(uri), params.position.line, col, ls.hover_context(uri), ls.analysed.get(uri)
        )
        if answer is None:
            return None
        return lsp.Hover(
            contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=answer.markdown),
            range=lsp.Range(
                ls.to_client(source, answer.line, answer.start), ls.to_client(source, answer.line, answer.end)
            ),
        )

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=True))
    @server.thread()  # parsing a large buffer must not stall the protocol loop
    def on_inlay_hint(ls: NumbaLensServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        uri = params.text_document.uri
        settings = ls.settings
        source = ls.document_source(uri)
        if source is None or not (settings.inlay_variable_types or settings.inlay_return_types):
            return []
        hints = inlay.inlay_hints(
            source,
            ls.typed.get(uri),
            params.range.start.line,
            params.range.end.line,
            variable_types=settings.inlay_variable_types,
            return_types=settings.inlay_return_types,
            max_length=settings.inlay_max_length,
        )
        return [
            lsp.InlayHint(
                position=ls.to_client(source, hint.line, hint.col),
                label=hint.label,
                kind=lsp.InlayHintKind.Type,
                padding_left=hint.kind == "return",
                data={"full": hint.full_label, "details": list(hint.details), "kind": hint.kind},
            )
            for hint in hints
        ]

    @server.feature(lsp.INLAY_HINT_RESOLVE)
    def on_inlay_hint_resolve(ls: NumbaLensServer, hint: lsp.InlayHint) -> lsp.InlayHint:
        data = hint.data if isinstance(hint.data, dict) else {}
        details = [str(line) for line in data.get("details", [])]
        full = str(data.get("full", hint.label))
        body = "```python\n" + "\n".join(details or [full]) + "\n```"
        if data.get("kind") == "parallel":  # issue 16: the parallel report is markdown already
            body = "\n".join(details) or full
        elif full != hint.label:
            body = f"`{full}`\n\n" + body
        hint.tooltip = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=body)
        return hint

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensOptions(resolve_provider=False))
    @server.thread()  # parsing a large buffer must not stall the protocol loop
    def on_code_lens(ls: NumbaLensServer, params: lsp.CodeLensParams) -> list[lsp.CodeLens]:
        uri = params.text_document.uri
        source = ls.document_source(uri)
        if source is None or not ls.settings.code_lens_enable:
            return []
        found = lenses.code_lenses(
            uri,
            source,
            ls.typed.get(uri),
            busy=ls.scheduler.busy(uri),
            trusted=ls.trusted,
            load_failed=ls.load_failed(uri),
        )
        return [
            lsp.CodeLens(
                range=lsp.Range(lsp.Position(lens.line, 0), lsp.Position(lens.line, 0)),
                command=lsp.Command(title=lens.title, command=lens.command, arguments=lens.arguments or None),
            )
            for lens in found
        ]

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.RefactorRewrite]
        ),
    )
    @server.thread()
    def on_code_action(ls: NumbaLensServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        source = ls.document_source(uri)
        if source is None:
            return []

        def wanted(kind: lsp.CodeActionKind) -> bool:
            only = [str(getattr(k, "value", k)) for k in params.context.only or []]
            return not only or any(kind.value == k or kind.value.startswith(f"{k}.") for k in only)

        result = []
        for diagnostic in params.context.diagnostics if wanted(lsp.CodeActionKind.QuickFix) else []:
            error_class = isinstance(diagnostic.data, dict) and diagnostic.data.get("errorClass")
            if diagnostic.code not in FIXABLE_CODES and not error_class:  # issue 16: fixes per error class
                continue
            data = diagnostic.data if isinstance(diagnostic.data, dict) else None
            fixes = actions.quick_fixes(source, str(diagnostic.code), diagnostic.range.start.line + 1, data)
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
                edits = ls.text_edits(source, fix.edits)
                result.append(
                    lsp.CodeAction(
                        title=fix.title,
                        kind=lsp.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        is_preferred=fix.preferred or None,
                        edit=lsp.WorkspaceEdit(changes={uri: edits}),
                    )
                )
        if wanted(lsp.CodeActionKind.RefactorRewrite):
            result.extend(ls.pin_types_actions(uri, source, params.range.start.line + 1))
        return result

    @server.feature(IR_VIEW)
    async def on_ir_view(ls: NumbaLensServer, params: Any) -> dict[str, Any]:
        return await ls.ir_view(params)

    @server.feature("numbaLens/typeStability")
    @server.thread()  # issue 16: the "Show type stability" view (pyserver.lsp.stability)
    def on_type_stability(ls: NumbaLensServer, params: Any) -> dict[str, Any]:
        raw = plain(params)
        uri = raw.get("uri") if isinstance(raw, dict) else None
        source = ls.document_source(uri) if isinstance(uri, str) else None
        if not isinstance(uri, str) or source is None:
            raise JsonRpcInvalidParams("numbaLens/typeStability needs the uri of an open document")
        return {"functions": stability.type_stability(source, ls.typed.get(uri))}

    @server.feature("numbaLens/compiles")
    @server.thread()  # issue 16: recompiles explained, the view behind the "N compiles · T s" lens
    def on_compiles(ls: NumbaLensServer, params: Any) -> dict[str, Any]:
        from pyserver.analysis.api import compiles_payload as payload

        raw = plain(params)
        uri = raw.get("uri") if isinstance(raw, dict) else None
        name = raw.get("function") if isinstance(raw, dict) else None
        if not isinstance(uri, str) or not isinstance(name, str):
            raise JsonRpcInvalidParams("numbaLens/compiles needs the uri of a document and a function name")
        analysed = ls.typed.get(uri)
        info = analysed.info(name) if analysed is not None else None
        return payload(name, to_fs_path(uri) or uri, list(info.compiles) if info is not None else [])

    @server.feature(lsp.SHUTDOWN)
    async def on_shutdown(ls: NumbaLensServer, params: None) -> None:
        # The worker goes now, not at exit: a client may wait for `shutdown` and then kill us.
        # Off the loop thread, since stopping a worker that hangs in user code takes a moment.
        closer = threading.Thread(target=ls.close_engine, name="numba-lens-close", daemon=True)
        closer.start()
        await asyncio.get_running_loop().run_in_executor(None, closer.join, 10.0)


def install_client_logging(server: NumbaLensServer, level: int = logging.INFO) -> Callable[[], None]:
    handler = ClientLogHandler(server)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.setLevel(level)
    package_logger = logging.getLogger("pyserver")
    package_logger.addHandler(handler)
    package_logger.setLevel(level)
    package_logger.propagate = False  # the client shows stderr too: say each thing once

    def remove() -> None:
        package_logger.removeHandler(handler)

    return remove


__all__ = ["NumbaLensServer", "create_server", "install_client_logging"]
