"""Fuzzing: generated and mutated Numba-style modules go through the engine API, the `check` CLI and the
language server. Nothing crashes, nothing hangs past the time-out, every diagnostic range lies inside
the file, and the server keeps answering. NUMBA_LENS_FUZZ_EXAMPLES sets the number of examples
(`make fuzz`: 1000); the default short run is part of `make test`.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import psutil
import pytest
from fuzz_sources import (
    EXAMPLES,
    FUZZ_SETTINGS,
    file_lines,
    fuzzed_bytes,
    fuzzed_sources,
    modules,
    mutated,
    utf16_length,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from lsp_session import Session, start_session
from lsprotocol import types as lsp

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import CODES, Diagnostic, Range

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 20.0  # the analysis time-out (the editor's default)
HANG_MARGIN_S = 120.0  # worker restart and Numba import on a loaded 2-core machine
T = TypeVar("T")
# Found by this fuzzer (now fixed): a syntax error at the end of a line got a range one past the line's
# end (`...\nfrom` gave 3:4-3:5 on a 4-character line), from the engine, `check` and the server.
TRUNCATED = "import math\n\nimport numpy as np\nfrom"
TRUNCATED_ASSIGNMENT = "from numba import njit\n\n\n@njit\ndef f(n: int):\n    lst ="
pytestmark = pytest.mark.timeout(max(900, EXAMPLES * 60))


def _inside(text: str, line: int, character: int, *, utf16: bool) -> bool:
    lines = file_lines(text)
    if not 0 <= line < len(lines):
        return False
    length = utf16_length(lines[line]) if utf16 else len(lines[line])
    return 0 <= character <= length


def _range_inside(text: str, value: Range, *, utf16: bool = False) -> bool:
    start, end = value.start, value.end
    return (
        _inside(text, start.line, start.character, utf16=utf16)
        and _inside(text, end.line, end.character, utf16=utf16)
        and (start.line, start.character) <= (end.line, end.character)
    )


def assert_sound(text: str, path: str, diagnostics: list[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        where = f"{diagnostic.code} {diagnostic.range} {diagnostic.message[:200]!r}"
        assert diagnostic.code in CODES, where
        assert diagnostic.severity in ("error", "warning", "information", "hint"), where
        assert diagnostic.message.strip(), where
        assert "internal error in Numba Lens" not in diagnostic.message, diagnostic.fullMessage
        if diagnostic.path == path:
            assert _range_inside(text, diagnostic.range), f"range outside the file: {where}"
        for related in diagnostic.relatedInformation:
            if related.path == path:
                assert _range_inside(text, related.range), f"related range outside the file: {where}"


# --- engine API -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AnalysisEngine]:
    engine = AnalysisEngine(tmp_path_factory.mktemp("fuzz_engine"), timeout_s=TIMEOUT_S)
    engine.start()
    yield engine
    pid = engine.worker_pid
    engine.close()
    if pid is not None:
        psutil.wait_procs([p for p in [_process(pid)] if p is not None], timeout=30)
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def _process(pid: int) -> psutil.Process | None:
    try:
        return psutil.Process(pid)
    except psutil.NoSuchProcess:
        return None


def _timed_analyze(engine: AnalysisEngine, path: Path, source: str | None) -> Any:
    started = time.monotonic()
    result = engine.analyze(path, source)
    elapsed = time.monotonic() - started
    assert elapsed < engine.timeout_s + HANG_MARGIN_S, f"analysis hung for {elapsed:.0f} s"
    assert result.status in ("ok", "failed", "partial"), result.status
    return result


@FUZZ_SETTINGS
@given(source=fuzzed_sources())
def test_engine_survives_fuzzed_buffers(engine: AnalysisEngine, source: str) -> None:
    path = Path(engine.workspace_root) / "fuzzed.py"
    path.write_text("", encoding="utf-8")  # the buffer is what counts, as in the editor
    result = _timed_analyze(engine, path, source)
    assert_sound(source, str(path), result.diagnostics)


@FUZZ_SETTINGS
@given(data=fuzzed_bytes())
def test_engine_survives_fuzzed_files_on_disk(engine: AnalysisEngine, data: bytes) -> None:
    path = Path(engine.workspace_root) / "fuzzed_bytes.py"
    path.write_bytes(data)
    result = _timed_analyze(engine, path, None)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        assert result.status == "failed" and [d.code for d in result.diagnostics] == ["analysis-failed"]
        return
    assert_sound(text, str(path), result.diagnostics)


@FUZZ_SETTINGS
@given(source=modules())
def test_unmutated_modules_never_fail_to_load(engine: AnalysisEngine, source: str) -> None:
    """Generated modules are valid Python: whatever Numba thinks of them, they load."""
    path = Path(engine.workspace_root) / "valid.py"
    path.write_text(source, encoding="utf-8")
    result = _timed_analyze(engine, path, source)
    load_failures = [d.message for d in result.diagnostics if d.message.startswith("The module could not be")]
    assert load_failures == []
    assert_sound(source, str(path), result.diagnostics)
    assert len(result.functions) == source.count("\ndef f")


# --- the check CLI ------------------------------------------------------------------------------------
@settings(FUZZ_SETTINGS, max_examples=max(1, EXAMPLES // 100))
@given(sources=st.lists(fuzzed_sources(), min_size=4, max_size=6))
def test_check_cli_survives_a_fuzzed_directory(
    tmp_path_factory: pytest.TempPathFactory, sources: list[str]
) -> None:
    root = tmp_path_factory.mktemp("fuzz_cli")
    for index, source in enumerate(sources):
        (root / f"fuzzed_{index}.py").write_text(source, encoding="utf-8", errors="surrogatepass")
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyserver",
            "check",
            "--format",
            "json",
            "--timeout",
            str(TIMEOUT_S),
            str(root),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=len(sources) * (TIMEOUT_S + HANG_MARGIN_S),
        check=False,
    )
    assert completed.returncode in (0, 1), completed.stderr[-3000:]
    payload = json.loads(completed.stdout)
    for diagnostic in payload["diagnostics"]:
        path = root / diagnostic["path"]
        text = path.read_text(encoding="utf-8", errors="surrogatepass")
        start, end = diagnostic["range"]["start"], diagnostic["range"]["end"]
        assert _inside(text, start["line"], start["character"], utf16=False), diagnostic
        assert _inside(text, end["line"], end["character"], utf16=False), diagnostic
        assert diagnostic["code"] in CODES


# --- the language server ----------------------------------------------------------------------------
class ServerThread:
    """One language server for every example, driven from a private event loop (hypothesis runs the
    examples synchronously)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fuzz-lsp-loop", daemon=True)
        self.thread.start()
        self.session: Session = self.call(start_session(root, settings={"timeout": TIMEOUT_S}))
        self.opened = False

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float = 600.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def save(self, name: str, text: str) -> list[lsp.Diagnostic]:
        session = self.session
        uri = session.uri(name)
        before = session.publish_count(uri)
        (self.root / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        if not self.opened:
            self.opened = True
            session.versions[uri] = 1
            session.client.text_document_did_open(
                lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, text))
            )
        else:
            # The whole text, so that line breaks the fuzzer puts in (\r, \r\n) cannot skew a range.
            session.versions[uri] += 1
            session.client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    lsp.VersionedTextDocumentIdentifier(version=session.versions[uri], uri=uri),
                    [lsp.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
            session.client.text_document_did_save(
                lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri))
            )
        session.texts[uri] = text
        return await session.next_publish(uri, before, timeout=TIMEOUT_S + HANG_MARGIN_S)

    async def probe(self, name: str, line: int, character: int) -> None:
        """Hover, code lenses and inlay hints answer (or decline) without an error."""
        session = self.session
        await session.hover(name, line, character)
        await session.code_lenses(name)
        await session.client.text_document_inlay_hint_async(
            lsp.InlayHintParams(
                lsp.TextDocumentIdentifier(session.uri(name)),
                lsp.Range(lsp.Position(0, 0), lsp.Position(line + 1, 0)),
            )
        )

    def close(self) -> None:
        try:
            self.call(self.session.shutdown(), timeout=120)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(30)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    server = ServerThread(tmp_path_factory.mktemp("fuzz_lsp"))
    children: list[psutil.Process] = []
    try:
        yield server
        children = server.session.descendants()
    finally:
        server.close()
    _gone, alive = psutil.wait_procs(children, timeout=30)
    assert alive == [], f"left behind by the language server: {alive}"


@FUZZ_SETTINGS
@given(source=fuzzed_sources(), where=st.tuples(st.integers(0, 200), st.integers(0, 120)))
def test_language_server_survives_fuzzed_saves(
    server: ServerThread, source: str, where: tuple[int, int]
) -> None:
    started = time.monotonic()
    diagnostics = server.call(server.save("fuzzed.py", source))
    assert time.monotonic() - started < TIMEOUT_S + HANG_MARGIN_S
    for diagnostic in diagnostics:
        value = Range.of(
            diagnostic.range.start.line,
            diagnostic.range.start.character,
            diagnostic.range.end.line,
            diagnostic.range.end.character,
        )
        assert _range_inside(source, value, utf16=True), (
            diagnostic.code,
            diagnostic.range,
            diagnostic.message,
        )
    lines = file_lines(source)
    line = min(where[0], len(lines) - 1)
    server.call(server.probe("fuzzed.py", line, min(where[1], utf16_length(lines[line]))))
    assert server.session.process.returncode is None, "the language server died"


@settings(FUZZ_SETTINGS, max_examples=max(3, EXAMPLES // 10))
@given(source=modules().flatmap(mutated))
def test_language_server_answers_after_fuzzed_edits_and_a_fix(server: ServerThread, source: str) -> None:
    """After any fuzzed buffer, a correct module analyses cleanly on the next save."""
    server.call(server.save("fuzzed.py", source))
    fixed = "from numba import njit\n\n\n@njit\ndef ok(n: int):\n    return n + 1\n"
    assert server.call(server.save("fuzzed.py", fixed)) == []
    hover = server.call(server.session.hover("fuzzed.py", 5, 11))
    assert hover is not None and "n: int64" in hover


# --- the bug it found, exactly ---------------------------------------------------------------------------
@pytest.mark.parametrize("source", [TRUNCATED, TRUNCATED_ASSIGNMENT], ids=["from", "assignment"])
def test_syntax_error_at_the_end_of_a_line_stays_inside_the_line(engine: AnalysisEngine, source: str) -> None:
    path = Path(engine.workspace_root) / "truncated.py"
    path.write_text(source, encoding="utf-8")
    for result in (engine.analyze(path, source), engine.analyze(path)):
        (failure,) = result.diagnostics
        assert "syntax error" in failure.message
        assert _range_inside(source, failure.range), failure.range


def test_syntax_error_at_the_end_of_a_line_stays_inside_the_line_in_the_server(server: ServerThread) -> None:
    diagnostics = server.call(server.save("fuzzed.py", TRUNCATED_ASSIGNMENT))
    (failure,) = diagnostics
    value = Range.of(
        failure.range.start.line,
        failure.range.start.character,
        failure.range.end.line,
        failure.range.end.character,
    )
    assert _range_inside(TRUNCATED_ASSIGNMENT, value, utf16=True), failure.range
