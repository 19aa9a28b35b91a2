"""The analysis engine as the server holds it: one engine at a time, built from the settings, rebuilt
when they change, and the probe that says whether this interpreter has a usable Numba at all.

Every engine call runs on the one engine thread (the engine serves one caller at a time); `close` may
be called from any thread, also while an analysis runs.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from pygls.uris import to_fs_path

from pyserver.analysis.api import may_make_jitted
from pyserver.analysis.model import FileResult
from pyserver.lsp.environment import NumbaCheck, check_numba
from pyserver.lsp.settings import Settings
from pyserver.lsp.views import discover
from pyserver.record import store

logger = logging.getLogger("pyserver.lsp")


class Engine(Protocol):
    def analyze(self, path: str | Path, source: str | None = None) -> FileResult: ...
    def ir_view(self, path: Any, source: Any, function: str, signature_index: int, kind: str) -> Any: ...
    def cancel(self) -> None: ...
    def close(self) -> None: ...


EngineFactory = Callable[[Settings, str], Engine]


class NumbaUnavailable(Exception):
    """No analysis can run: Numba is missing or too old in this interpreter."""


def analysis_engine(settings: Settings, root: str) -> Engine:
    """The real engine: a worker process that runs the user's code."""
    from pyserver.analysis.engine import AnalysisEngine

    signature_files = [str(Path(root, f)) for f in settings.signature_files]
    return AnalysisEngine(
        root,
        timeout_s=settings.timeout_s,
        signature_files=signature_files,
        loading=settings.module_loading,
        trusted=True,
        log=lambda text: logger.info("engine: %s", text),
    )


class EngineHost:
    def __init__(
        self,
        on_numba_failed: Callable[[str], None] = lambda message: None,
        numba_check: Callable[[], NumbaCheck] = check_numba,
        engine_factory: EngineFactory = analysis_engine,
    ) -> None:
        self.numba: NumbaCheck | None = None  # the probe's verdict, once it has one
        self.closed = False
        self._on_numba_failed = on_numba_failed
        self._numba_check = numba_check
        self._engine_factory = engine_factory
        self._engine: Engine | None = None
        self._engine_key: object = None
        self._guard = threading.Lock()
        self._numba_thread: threading.Thread | None = None
        self._numba_ready = threading.Event()

    @property
    def numba_unavailable(self) -> str | None:
        """Why no analysis can run, once the probe found no usable Numba."""
        if self.numba is not None and not self.numba.ok:
            return self.numba.message
        return None

    # --- the Numba probe -----------------------------------------------------------------------------
    def start_environment_check(self) -> None:
        """Probe Numba in a child interpreter, in parallel with the first analysis's worker start."""
        with self._guard:
            if self._numba_thread is not None:
                return
            self._numba_thread = threading.Thread(
                target=self._check_numba, name="numba-lens-probe", daemon=True
            )
        self._numba_thread.start()

    def _check_numba(self) -> None:
        started = time.perf_counter()
        try:
            self.numba = self._numba_check()
        finally:
            self._numba_ready.set()
        logger.info("%s (checked in %.0f ms)", self.numba.message, (time.perf_counter() - started) * 1000)
        if not self.numba.ok:
            self._on_numba_failed(self.numba.message)

    def check_environment(self, wait: bool = True) -> None:
        """Raise NumbaUnavailable once the probe found no usable Numba (waiting for it if asked)."""
        self.start_environment_check()
        if wait:
            self._numba_ready.wait(timeout=180)
        if self.numba_unavailable is not None:
            raise NumbaUnavailable(self.numba_unavailable)

    # --- the engine (engine thread) ------------------------------------------------------------------
    def engine(self, settings: Settings, root: str) -> Engine:
        """The engine for these settings: the current one, or a new one when they changed."""
        key = settings.engine_key()
        with self._guard:
            if self.closed:
                raise NumbaUnavailable("the server is shutting down")
            if self._engine is not None and self._engine_key != key:
                self._engine.close()
                self._engine = None
            if self._engine is None:
                self._engine = self._engine_factory(settings, root)
                self._engine_key = key
            return self._engine

    def analyze(self, uri: str, source: str, settings: Settings, root: str) -> FileResult:
        path = to_fs_path(uri) or uri
        # may_make_jitted first: it is a substring test for any text that names numba, where discover
        # would parse the whole buffer (and the worker parses it anyway).
        if (
            not may_make_jitted(source)
            and not discover(source)
            and os.path.realpath(path) not in store.files_with_typed_compiles(root, settings.signature_files)
        ):
            # Nothing jitted here (nor jitted by another module in a recorded run): nothing to check, and
            # no reason to run the module at all.
            return FileResult(path)
        self.check_environment(wait=False)
        result = self.engine(settings, root).analyze(path, source)
        # A result computed without a usable Numba is noise: the probe's verdict decides.
        self.check_environment(wait=True)
        return result

    def cancel(self) -> None:
        """Cancel the analysis in flight, if any."""
        engine = self._engine
        if engine is not None:
            try:
                engine.cancel()
            except Exception as exc:
                logger.warning("cancelling the analysis in flight failed: %s", exc)

    def close(self) -> None:
        """Stop the worker; callable from any thread, also while an analysis runs."""
        with self._guard:
            self.closed = True
            engine, self._engine = self._engine, None
        if engine is not None:
            try:
                engine.cancel()
            except Exception:
                pass
            try:
                engine.close()
            except Exception as exc:
                logger.warning("closing the analysis engine failed: %s", exc)
