"""The analysis worker process: `python -m pyserver.analysis.worker REQUEST_FD RESPONSE_FD ROOT`.

Requests and replies are pickled over two private pipes (multiprocessing.connection framing); stdin is
the parent's lifeline: when it reaches EOF (the parent died or closed us) the worker exits at once,
even while the user's module is stuck at import. PR_SET_PDEATHSIG covers a parent killed with SIGKILL.
Anything the user's code prints goes to stderr, which the engine collects for its log and for the
location of a crash or a hang (faulthandler dumps there).
"""

from __future__ import annotations

import ctypes
import faulthandler
import gc
import os
import signal
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

PR_SET_PDEATHSIG = 1
# The collector's thresholds (CPython's defaults: 700, 10, 10). An analysis allocates many short-lived
# containers (IR, typing constraints): rarer young collections let most of them die first. A full
# collection walks everything the worker holds outside the frozen start-up objects (the call index's
# trees, kept inferences, typing caches) and frees little: with the defaults, a package's check spent
# 10-25% of its CPU in the collector.
COLLECTOR_THRESHOLDS = (50_000, 20, 100)


def _die_with_parent() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    parent = os.getppid()

    def watch_stdin() -> None:
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        os._exit(0)

    def watch_parent() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch_stdin, name="lifeline", daemon=True).start()
    threading.Thread(target=watch_parent, name="parent-watch", daemon=True).start()


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)
    except (OSError, ValueError, IndexError):
        return 0.0


def _note_loading(result: Any, load: Any) -> None:
    """How the module was loaded, and which top-level statements did not run (the last load of the
    analysis: after a failed import, the definitions-only retry)."""
    if load is None or os.path.abspath(str(load.module.__file__ if load.module else "")) != result.path:
        return
    result.loading = "definitions" if load.skipped_statements or load.loading == "definitions" else "full"
    result.skipped = list(load.skipped_statements)
    result.third_party_import_ms = round(load.third_party_import_ms, 1)
    result.third_party_import_cpu_ms = round(load.third_party_import_cpu_ms, 1)
    if load.unchecked:
        # A statement computing a global that jitted functions read failed (raised, hung, crashed) and was
        # left out: the module did not load as far as they are concerned. "failed" keeps the types of the
        # last analysis that loaded it in the editor (labelled as older), as a failed import does.
        result.status = "failed"


def main(argv: list[str]) -> int:
    request_fd, response_fd, root = int(argv[0]), int(argv[1]), argv[2]
    _die_with_parent()
    faulthandler.enable(file=sys.stderr, all_threads=True)
    faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)
    requests = Connection(request_fd, writable=False)
    responses = Connection(response_fd, readable=False)
    os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
    # User code must not read the protocol or write into it: stdout goes to stderr.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    started = time.perf_counter()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    try:
        from pyserver import numba_api
        from pyserver.analysis.worker.infer.analyzer import Analyzer

        numba_api.install()  # Numba's methods the analysis replaces, before anything is typed
        signature_files = [p for p in os.environ.get("NUMBA_LENS_SIGNATURE_FILES", "").split(os.pathsep) if p]
        analyzer = Analyzer(root, signature_files)
        # The engine starts us outside the workspace (see worker_process.spawn_worker); user code runs in the root.
        os.chdir(root)
        # Numba's start-up objects and the warm-up's leave the collector's generations now (~40 ms, before
        # any file arrives), or a full collection walks them during the first file's analysis.
        gc.collect()
        gc.freeze()
    except BaseException:
        responses.send({"op": "ready", "ok": False, "error": traceback.format_exc()})
        return 1
    from pyserver.analysis.reply_functions import SentFunctions
    from pyserver.analysis.worker.load.import_clock import IMPORT_CLOCK

    responses.send(
        {
            "op": "ready",
            "ok": True,
            "numba": numba_api.NUMBA_VERSION,
            "startup_ms": (time.perf_counter() - started) * 1000.0,
            "pid": os.getpid(),
        }
    )
    busy = [False]
    sent_functions = SentFunctions()
    frozen = [False]  # gc.freeze() done
    current = [0]  # the id of the request in progress

    def on_import_clock(paused: bool, name: str) -> None:
        # The engine stops this request's time-out clock while a third-party module imports.
        try:
            responses.send({"id": current[0], "clock": "pause" if paused else "resume", "module": name})
        except (OSError, ValueError):
            pass

    IMPORT_CLOCK.on_change = on_import_clock

    def on_progress(what: str) -> None:
        # Where the analysis is, for the engine's time-out message (the module loaded; typing f(...)).
        try:
            responses.send({"id": current[0], "progress": what})
        except (OSError, ValueError):
            pass

    analyzer.on_progress = on_progress

    def on_cancel(signum: int, frame: Any) -> None:
        # A cancel interrupts work in flight only; between requests it must not break the framing.
        if busy[0]:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_cancel)
    while True:
        busy[0] = False
        try:
            request: dict[str, Any] = requests.recv()
        except (EOFError, OSError):
            return 0
        busy[0] = True
        current[0] = request.get("id") or 0
        op = request.get("op")
        reply: dict[str, Any] = {"id": request.get("id"), "ok": True}
        analyzer.loader.loading = "full" if request.get("loading") == "full" else "definitions"
        analyzer.loader.last_load = None
        analyzer.loader.skip_lines = {int(n) for n in request.get("skip_lines") or ()}
        try:
            if op == "analyze":
                result = analyzer.analyze(
                    request["path"], request["source"], selective=bool(request.get("selective"))
                )
                _note_loading(result, analyzer.loader.last_load)
                if "known" in request:  # the functions as what changed since the reply the engine holds
                    reply["functions"] = sent_functions.encode(
                        request["path"], result.functions, int(request["known"]), int(request.get("id") or 0)
                    )
                    result.functions = []
                reply["result"] = result
            elif op == "ir_view":
                from pyserver.analysis.worker.infer.ir_views import ir_view

                reply["result"] = ir_view(
                    analyzer,
                    request["path"],
                    request["source"],
                    request["function"],
                    request["signature_index"],
                    request["kind"],
                    selective=bool(request.get("selective")),
                )
            elif op == "ping":
                reply["result"] = "pong"
            elif op == "exit":
                responses.send(reply)
                return 0
            else:
                reply = {"id": request.get("id"), "ok": False, "error": f"unknown request {op!r}"}
        except KeyboardInterrupt:
            reply = {"id": request.get("id"), "ok": False, "cancelled": True, "error": "cancelled"}
        except BaseException as exc:
            reply = {
                "id": request.get("id"),
                "ok": False,
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(),
            }
        busy[0] = False
        reply["rss_mb"] = _rss_mb()
        try:
            responses.send(reply)
        except (OSError, ValueError):
            return 0
        except Exception as exc:  # an unpicklable result: say so rather than hang the parent
            responses.send({"id": request.get("id"), "ok": False, "error": f"reply not sendable: {exc}"})
        if not frozen[0]:
            # Once more, after the first reply (nobody waits): what the first analysis loaded (the
            # workspace's imports) leaves the collector's generations too, so the full collections that
            # later analyses trigger do not walk it each time (tens of ms each).
            frozen[0] = True
            gc.collect()
            gc.freeze()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
