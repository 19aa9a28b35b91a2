"""AnalysisEngine: the parent side of the analysis worker.

The engine never imports Numba and never runs user code itself: a warm worker process does
(pyserver.analysis.worker). The engine starts it on demand, sends it the editor buffer, and turns
every failure of user code into an `analysis-failed` diagnostic: an import error, a time-out (the
worker is killed and replaced), a crash (segfault), a worker that outgrows its memory limit. In an
untrusted workspace nothing is started and nothing executes.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pyserver.analysis.model import Diagnostic, FileResult, IRView
from pyserver.analysis.reply_functions import ReceivedFunctions
from pyserver.analysis.static_results import (
    extends_numba,
    failed_result,
    functions_from_ast,
    import_time_fingerprint,
    line_range,
    read_source,
    typing_time_out,
)
from pyserver.analysis.worker_process import WorkerProcess, kill_worker, spawn_worker

STARTUP_TIMEOUT_S = 120.0
# A third-party import does not count against the file's time-out, up to this long (then it does: a
# package that hangs at import must still end).
THIRD_PARTY_IMPORT_LIMIT_S = 300.0
POLL_S = 0.02


class AnalysisUnavailable(Exception):
    """An IR view (or other request) that cannot be answered; the message says why."""


class AnalysisEngine:
    def __init__(
        self,
        workspace_root: str | Path,
        *,
        timeout_s: float = 20.0,
        signature_files: Sequence[str | Path] = (),
        memory_limit_mb: int = 1500,
        trusted: bool = True,
        log: Callable[[str], None] | None = None,
        python: str | None = None,
        loading: str = "definitions",
    ) -> None:
        self.workspace_root = str(Path(workspace_root).resolve())
        self.timeout_s = timeout_s
        # "definitions" (only what defining the jitted functions needs runs) | "full" (the whole top level)
        self.loading = loading if loading in ("definitions", "full") else "definitions"
        self.signature_files = [str(p) for p in signature_files]
        self.memory_limit_mb = memory_limit_mb
        self.trusted = trusted
        self.log = log or (lambda message: None)
        self.python = python or sys.executable
        self._worker_box: list[WorkerProcess | None] = [None]
        # Cancellation belongs to one call: cancel() marks the analyze()/ir_view() call in progress, from
        # the moment it is entered (worker start-up and the definitions-only retry included) until it
        # returns. With no call in progress a cancel has nothing to abandon and is dropped, so it can
        # never abandon a later, newer request.
        self._cancel = threading.Event()
        self._call_lock = threading.Lock()
        self._calls_in_progress = 0
        self._next_id = 0
        # Spawned from one long-lived thread: PR_SET_PDEATHSIG fires when the *thread* that started the
        # worker exits, and callers may come from short-lived threads.
        self._spawner = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="numba-lens-spawn"
        )
        self._finalizer = weakref.finalize(self, kill_worker, self._worker_box)
        self.restarts = 0
        self._closed = False
        # path -> (fingerprint of its import-time code, failure message, line) after a hang or crash
        self._import_failures: dict[str, tuple[str, str, int | None]] = {}
        # path -> digest of the source last executed, for modules that use Numba's extension API
        self._extension_sources: dict[str, str] = {}
        # path -> its lines in the last hang's or crash's stack (the definitions-only retry skips them)
        self._failure_lines: dict[str, list[int]] = {}
        # path -> the functions of the last analysis received, which the next reply refers to
        self._received_functions = ReceivedFunctions()

    # ---------------------------------------------------------------------------------- lifecycle

    @property
    def calls_in_progress(self) -> int:
        """analyze()/ir_view() calls in progress now (a cancel() targets them)."""
        return self._calls_in_progress

    @property
    def worker_pid(self) -> int | None:
        worker = self._worker_box[0]
        return worker.pid if worker is not None and worker.process.poll() is None else None

    def worker_cpu_s(self) -> float | None:
        """CPU seconds the current worker has used since it started (None: no worker, or unreadable)."""
        worker = self._worker_box[0]
        return worker.cpu_s() if worker is not None and worker.process.poll() is None else None

    def start(self) -> dict[str, Any]:
        """Start the worker now (it imports Numba and warms up) and wait until it is ready."""
        if not self.trusted:
            raise AnalysisUnavailable("untrusted workspace: Numba Lens runs no code here")
        return self._ensure_worker().ready

    def _spawn(self) -> WorkerProcess:
        return spawn_worker(self.python, self.workspace_root, self.signature_files, self.log)

    def _ensure_worker(self) -> WorkerProcess:
        if self._closed:
            raise AnalysisUnavailable("the analysis engine is closed")
        worker = self._worker_box[0]
        if worker is not None and worker.process.poll() is None:
            return worker
        if worker is not None:
            worker.kill()
            self._worker_box[0] = None
            self.restarts += 1
        worker = self._spawner.submit(self._spawn).result()
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not worker.responses.poll(POLL_S):
            if worker.process.poll() is not None or time.monotonic() > deadline:
                raise self._startup_failure(worker)
        try:
            ready = worker.responses.recv()
        except (EOFError, OSError) as exc:  # the pipe closed: the worker died before saying it was ready
            raise self._startup_failure(worker) from exc
        if not ready.get("ok"):
            worker.kill()
            raise AnalysisUnavailable(f"the analysis worker failed to start:\n{ready.get('error')}")
        worker.ready = ready
        self._worker_box[0] = worker
        self.log(
            f"analysis worker {worker.pid} ready (numba {ready.get('numba')}, {ready.get('startup_ms', 0):.0f} ms)"
        )
        return worker

    def _startup_failure(self, worker: WorkerProcess) -> AnalysisUnavailable:
        """Why the worker did not start: how it ended and what it printed (never an empty message)."""
        try:
            exited: int | None = worker.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            exited = None
        worker.kill()
        if worker.pump is not None:
            worker.pump.join(timeout=5)  # its last words (a traceback) may still be in the pipe
        output = worker.output_since(0).strip()
        how = f"no answer within {STARTUP_TIMEOUT_S:g} s" if exited is None else self._describe_exit(exited)
        return AnalysisUnavailable(
            f"the analysis worker did not start ({how}; interpreter {self.python})"
            + (f":\n{output[-4000:]}" if output else "; it printed nothing")
        )

    def close(self) -> None:
        """Stop the worker; no process is left behind. Safe to call twice, and from another thread."""
        self._closed = True
        worker = self._worker_box[0]
        if worker is not None:
            try:
                if worker.process.poll() is None:
                    worker.requests.send({"op": "exit"})
                    worker.process.wait(timeout=2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
            worker.kill()
            self._worker_box[0] = None
        self._spawner.shutdown(wait=False)

    def cancel(self) -> None:
        """Abandon the call in flight: analyze() returns a `cancelled` result, ir_view() raises
        AnalysisUnavailable (the worker may be replaced). The call is abandoned whatever stage it is in
        (starting the worker, loading, inferring); with no call in progress this does nothing."""
        with self._call_lock:
            if self._calls_in_progress:
                self._cancel.set()

    @contextlib.contextmanager
    def _call(self) -> Iterator[None]:
        """Marks one analyze()/ir_view() call as the target of cancel()."""
        with self._call_lock:
            self._calls_in_progress += 1
        try:
            yield
        finally:
            with self._call_lock:
                self._calls_in_progress -= 1
                if not self._calls_in_progress:
                    self._cancel.clear()  # consumed by this call (or never used): not carried over

    def recycle(self) -> None:
        self._extension_sources.clear()  # a fresh worker has executed nothing yet
        worker = self._worker_box[0]
        if worker is not None:
            worker.kill()
            self._worker_box[0] = None
            self.restarts += 1

    # ------------------------------------------------------------------------------------ requests

    def _request(self, message: dict[str, Any]) -> tuple[str, Any, str]:
        """("ok", reply) or (failure kind, None, detail): kinds timeout | crashed | memory | cancelled | error."""
        worker = self._ensure_worker()
        if self._cancel.is_set():
            return "cancelled", None, ""  # cancelled while the worker started or an earlier step ran
        self._next_id += 1
        request_id = self._next_id
        message = dict(message, id=request_id, loading=self.loading)
        known = 0
        if message.get("op") == "analyze":
            message["known"] = known = self._received_functions.known(message["path"])
        paused_at: float | None = None  # while the worker imports a third-party module (not the file's work)
        progress = ""  # what the worker said it does now: "" (loading the module), "loaded", "typing f(...)"
        mark = worker.output_mark()
        try:
            worker.requests.send(message)
        except (OSError, ValueError) as exc:
            self.recycle()
            return "crashed", None, f"could not reach the worker: {exc}"
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                if worker.responses.poll(POLL_S):
                    reply = worker.responses.recv()
                    if reply.get("id") != request_id:
                        continue  # a stale reply to a cancelled request
                    if "clock" in reply:  # only the file's own work counts against its time-out
                        if reply["clock"] == "pause" and paused_at is None:
                            paused_at = time.monotonic()
                        elif reply["clock"] == "resume" and paused_at is not None:
                            deadline += time.monotonic() - paused_at
                            paused_at = None
                        continue
                    if "progress" in reply:
                        progress = str(reply["progress"])
                        continue
                    if reply.get("rss_mb", 0) > 0.8 * self.memory_limit_mb:
                        self.log(f"recycling the analysis worker at {reply['rss_mb']:.0f} MB")
                        self.recycle()
                    if reply.get("cancelled"):
                        return "cancelled", None, ""
                    if not reply.get("ok"):
                        return "error", None, str(reply.get("traceback") or reply.get("error"))
                    result = reply.get("result")
                    if "functions" in reply:
                        result.functions = self._received_functions.decode(
                            message["path"], reply["functions"], known, request_id
                        )
                    return "ok", result, ""
            except (EOFError, OSError):
                pass
            if self._closed:
                return "cancelled", None, ""  # closed from another thread while this run was in flight
            if worker.process.poll() is not None:
                time.sleep(0.1)  # let the pump read the crash report
                code = worker.process.returncode
                self.recycle()
                return "crashed", None, self._describe_exit(code) + "\n" + worker.output_since(mark)
            if self._cancel.is_set():
                return self._interrupt(worker, request_id)
            if worker.rss_mb() > self.memory_limit_mb:
                self.recycle()
                return "memory", None, f"the worker grew past {self.memory_limit_mb} MB"
            if paused_at is not None and time.monotonic() - paused_at < THIRD_PARTY_IMPORT_LIMIT_S:
                continue
            if time.monotonic() > deadline:
                try:
                    os.kill(worker.pid, signal.SIGUSR1)  # faulthandler: where is it stuck?
                except OSError:
                    pass
                time.sleep(0.3)
                detail = worker.output_since(mark)
                self.recycle()
                return "timeout", {"progress": progress}, detail

    def _interrupt(self, worker: WorkerProcess, request_id: int) -> tuple[str, Any, str]:
        try:
            os.kill(worker.pid, signal.SIGINT)
        except OSError:
            pass
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            try:
                if worker.responses.poll(POLL_S):
                    reply = worker.responses.recv()
                    if reply.get("id") == request_id:
                        return "cancelled", None, ""
            except (EOFError, OSError):
                break
        self.recycle()  # it did not stop: replace it
        return "cancelled", None, ""

    @staticmethod
    def _describe_exit(code: int | None) -> str:
        if code is not None and code < 0:
            try:
                return f"the worker was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"the worker was killed by signal {-code}"
        return f"the worker exited with code {code}"

    @staticmethod
    def _user_line(detail: str, path: str) -> int | None:
        """The innermost line of `path` in a faulthandler dump or traceback (where it hung or crashed)."""
        lines = re.findall(r'File "([^"]+)", line (\d+)', detail)
        for file_name, line in lines:  # faulthandler lists the innermost frame first
            if os.path.abspath(file_name) == path:
                return int(line)
        return None

    def analyze(self, path: str | Path, source: str | None = None) -> FileResult:
        with self._call():
            return self._analyze(path, source)

    def _analyze(self, path: str | Path, source: str | None) -> FileResult:
        path = os.path.abspath(str(path))
        if source is None:
            try:
                source = read_source(path)
            except (UnicodeDecodeError, SyntaxError) as exc:
                return failed_result(
                    path, f"The module could not be analysed: it is not valid text in its encoding ({exc})."
                )
            except OSError as exc:
                return failed_result(path, f"The module could not be analysed: {exc.strerror or exc}.")
        if not self.trusted:
            return FileResult(path=path, functions=functions_from_ast(path, source), status="untrusted")
        started = time.perf_counter()
        remembered = self._import_failures.get(path)
        # Parsed here only when needed (a remembered failure, or a new one below): on an ordinary save the
        # worker's parse is the only one.
        fingerprint = import_time_fingerprint(source) if remembered is not None else None
        if remembered is not None and fingerprint is not None and remembered[0] == fingerprint:
            # It hung or crashed last time and the code that runs at import is unchanged: do not wait
            # for the time-out again, load its definitions only.
            failure = failed_result(path, remembered[1], remembered[2]).diagnostics[0]
            failure.range = line_range(source, remembered[2] or 1)
            partial = self._definitions_only(path, source, failure)
            if partial is not None:
                partial.elapsed_ms = (time.perf_counter() - started) * 1000.0
                return partial
        if extends_numba(source):
            digest = hashlib.sha256(source.encode()).hexdigest()
            previous = self._extension_sources.get(path)
            if previous is not None and previous != digest and self.worker_pid is not None:
                self.log(f"{path} extends Numba and changed: starting a fresh worker for it")
                self.recycle()
            self._extension_sources[path] = digest
        try:
            kind, reply, detail = self._request({"op": "analyze", "path": path, "source": source})
        except AnalysisUnavailable as exc:
            failed = failed_result(path, f"The module could not be analysed: {exc}")
            failed.functions = functions_from_ast(path, source)
            return failed
        if kind == "ok":
            analysed: FileResult = reply
            self._import_failures.pop(path, None)
            return analysed
        if kind == "timeout" and reply["progress"]:  # the module loaded: its typing was slow, not its code
            return typing_time_out(path, source, self.timeout_s, reply["progress"], started)
        line = self._user_line(detail, path)
        where = f" at line {line}" if line else ""
        if kind in ("timeout", "crashed"):  # the retry leaves out the top-level statement where it was
            self._failure_lines[path] = [
                int(n)
                for f, n in re.findall(r'File "([^"]+)", line (\d+)', detail)
                if os.path.abspath(f) == path
            ]
        if kind == "timeout" and self.loading == "definitions":
            message = (
                f"The module could not be analysed: time-out after {self.timeout_s:g} s{where} (only the "
                "top-level statements that defining its jitted functions needs run: this one computes a "
                "global they read, or makes them, and did not finish)."
            )
        elif kind == "timeout":
            message = (
                f"The module could not be analysed: time-out after {self.timeout_s:g} s{where} "
                "(does it loop or wait at import? Top-level code runs when Numba Lens loads the module; "
                'guard it with `if __name__ == "__main__":`).'
            )
        elif kind == "crashed":
            first = detail.strip().splitlines()[0] if detail.strip() else "the worker stopped"
            message = f"The module could not be analysed: it crashed the analysis worker{where} ({first})."
        elif kind == "memory":
            message = f"The module could not be analysed: {detail}{where}; the worker was restarted."
        elif kind == "cancelled":
            return self._cancelled(path, source, started)
        else:
            message = "The module could not be analysed: internal error in Numba Lens (see the full message)."
        failed = failed_result(path, message, line, full=detail[-8000:] or None)
        if line is not None:
            failed.diagnostics[0].range = line_range(source, line)
        if kind in ("timeout", "crashed"):
            if remembered is None:
                fingerprint = import_time_fingerprint(source)
            if fingerprint is not None:
                self._import_failures[path] = (fingerprint, message, line)
            partial = self._definitions_only(path, source, failed.diagnostics[0])
            if partial is not None:
                partial.elapsed_ms = (time.perf_counter() - started) * 1000.0
                return partial
            if self._cancel.is_set():
                return self._cancelled(path, source, started)
        failed.functions = functions_from_ast(path, source)
        failed.elapsed_ms = (time.perf_counter() - started) * 1000.0
        return failed

    @staticmethod
    def _cancelled(path: str, source: str, started: float) -> FileResult:
        cancelled = FileResult(path=path, functions=functions_from_ast(path, source), status="cancelled")
        cancelled.elapsed_ms = (time.perf_counter() - started) * 1000.0
        return cancelled

    def _definitions_only(self, path: str, source: str, failure: Diagnostic) -> FileResult | None:
        """After a hang or a crash at import: load only imports, definitions and the globals they read,
        and check the functions anyway (the failure stays reported). None if that fails too."""
        try:
            kind, reply, _detail = self._request(
                {
                    "op": "analyze",
                    "path": path,
                    "source": source,
                    "selective": True,
                    # the top-level statement holding these lines hung or crashed: it does not run again
                    "skip_lines": self._failure_lines.get(path, []),
                }
            )
        except AnalysisUnavailable:
            return None
        if kind != "ok":
            return None
        result: FileResult = reply
        skipped = len(result.skipped_statements)
        failure.message += (
            f" Numba Lens then loaded only the module's imports and definitions ({skipped} top-level "
            f"statement{'s' if skipped != 1 else ''} skipped) and checked its functions."
        )
        result.diagnostics.insert(0, failure)
        if result.status != "failed":  # failed: a function could not be checked (worker._note_loading)
            result.status = "partial"
        return result

    def ir_view(
        self, path: str | Path, source: str | None, function: str, signature_index: int, kind: str
    ) -> IRView:
        with self._call():
            return self._ir_view(path, source, function, signature_index, kind)

    def _ir_view(
        self, path: str | Path, source: str | None, function: str, signature_index: int, kind: str
    ) -> IRView:
        if not self.trusted:
            raise AnalysisUnavailable("untrusted workspace: Numba Lens compiles nothing here")
        path = os.path.abspath(str(path))
        if source is None:
            source = read_source(path)
        message = {
            "op": "ir_view",
            "path": path,
            "source": source,
            "function": function,
            "signature_index": signature_index,
            "kind": kind,
            # a module known to hang or crash at import: its definitions only
            "selective": path in self._import_failures,
        }
        saved_timeout = self.timeout_s
        self.timeout_s = max(self.timeout_s, 60.0)  # a full compile of a large function may take a while
        try:
            status, reply, detail = self._request(message)
        finally:
            self.timeout_s = saved_timeout
        if status != "ok":
            last = detail.strip().splitlines()[-1] if detail.strip() else status
            raise AnalysisUnavailable(f"IR view unavailable: {last}")
        view: IRView = reply
        return view
