"""What the language-server benchmarks share (bench_lsp.py, bench_notebook.py): Numba's own compile of a
module as the reference, a pygls client of `python -m pyserver lsp` that keeps every publishDiagnostics,
and one timed round trip: send a notification, wait for the next diagnostics of a document.

Not a benchmark itself (run_all.py runs bench_*.py only). Nothing here asserts a time.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

REPOSITORY = Path(__file__).resolve().parent.parent

NUMBA_COMPILE = """
import importlib, sys, time
sys.path.insert(0, sys.argv[1])
started = time.perf_counter()
import numba  # noqa: F401
imported = time.perf_counter()
importlib.import_module(sys.argv[2])  # every decorator compiles its signature now
done = time.perf_counter()
print(f"{imported - started:.6f} {done - imported:.6f}")
"""


def numba_compile_seconds(module_source: str) -> tuple[float, float]:
    """(import numba, the import of `module_source`, whose decorators compile eager signatures), in a fresh
    interpreter with an empty cache."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "eager_module.py").write_text(module_source)
        output = subprocess.run(
            [sys.executable, "-c", NUMBA_COMPILE, folder, "eager_module"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "NUMBA_CACHE_DIR": folder},
        )
        import_s, compile_s = (float(v) for v in output.stdout.split())
        return import_s, compile_s


class BenchClient:
    """A client of the real server over stdio that records every publishDiagnostics with its arrival time."""

    def __init__(self) -> None:
        self.client = LanguageClient("numba-lens-bench", "1")
        self.published: dict[str, list[tuple[float, list[lsp.Diagnostic]]]] = {}
        self.event = asyncio.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(ls: Any, params: lsp.PublishDiagnosticsParams) -> None:
            self.published.setdefault(params.uri, []).append((time.perf_counter(), list(params.diagnostics)))
            self.event.set()

        @self.client.feature("numbaLens/status")
        def on_status(ls: Any, params: Any) -> None:
            pass

        @self.client.feature(lsp.WINDOW_LOG_MESSAGE)
        def on_log(ls: Any, params: Any) -> None:
            pass

    async def start(self, root: Path, settings: dict[str, Any]) -> int:
        """Starts and initialises `python -m pyserver lsp` (trusted) on the workspace `root`; its pid."""
        await self.client.start_io(sys.executable, "-m", "pyserver", "lsp", cwd=str(REPOSITORY))
        assert self.client._server is not None
        await self.client.initialize_async(
            lsp.InitializeParams(
                capabilities=lsp.ClientCapabilities(),
                root_uri=from_fs_path(str(root)),
                initialization_options={"trusted": True, "settings": settings},
            )
        )
        self.client.initialized(lsp.InitializedParams())
        return self.client._server.pid

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), 60)
        self.client.exit(None)
        if self.client._server is not None:
            await asyncio.wait_for(self.client._server.wait(), 60)
        await self.client.stop()

    async def wait_publish(
        self, uri: str, count: int, timeout: float = 300
    ) -> tuple[float, list[lsp.Diagnostic]]:
        """The `count`-th (0-based) publishDiagnostics of `uri`, waiting for it."""
        deadline = time.perf_counter() + timeout
        while len(self.published.get(uri, [])) <= count:
            self.event.clear()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"no diagnostics for {uri}")
            try:
                await asyncio.wait_for(self.event.wait(), min(remaining, 1.0))
            except asyncio.TimeoutError:
                pass
        return self.published[uri][count]

    async def round_trip(
        self, uri: str, send: Callable[[], None], expected: Callable[[lsp.Diagnostic], bool] = lambda d: False
    ) -> float:
        """Seconds from `send()` to the next diagnostics of `uri`; any diagnostic not `expected` is an
        error (the benchmark's edits keep the code clean)."""
        count = len(self.published.get(uri, []))
        started = time.perf_counter()
        send()
        finished, diagnostics = await self.wait_publish(uri, count)
        unexpected = [d.message for d in diagnostics if not expected(d)]
        if unexpected:
            raise RuntimeError(f"unexpected diagnostics: {unexpected}")
        return finished - started


def whole_text_change(old_text: str, new_text: str) -> lsp.TextDocumentContentChangePartial:
    """A change event that replaces all of `old_text` by `new_text`."""
    lines = old_text.split("\n")
    return lsp.TextDocumentContentChangePartial(
        range=lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines) - 1, len(lines[-1]))), text=new_text
    )


def median_p90(timings: list[float]) -> tuple[float, float]:
    return statistics.median(timings), sorted(timings)[int(len(timings) * 0.9) - 1]


def server_cpu_s(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system) so far of the server `pid` and of its child processes (the analysis
    worker): what an edit costs whatever the machine's load, where wall time includes waiting for a core."""
    server = psutil.Process(pid)

    def used(process: psutil.Process) -> float:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            return 0.0
        return float(times.user + times.system)

    return used(server), sum(used(child) for child in server.children(recursive=True))


def machine_load() -> str:
    """The load averages (1, 5, 15 min) and the CPU count, to print beside every timing."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"
