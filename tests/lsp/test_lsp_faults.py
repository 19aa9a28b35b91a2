"""Faults in the user's module seen through the protocol: a hang at import, a segfault, a syntax
error, output on stdout. After each the server still answers and the next save works. Also: a
newer save cancels the run in flight (its result is never published), on-type analysis is
debounced, and no process outlives the client."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest
import pytest_asyncio
from lsp_session import Session, copy_examples, first, start_session
from lsprotocol import types as lsp

pytestmark = pytest.mark.asyncio(loop_scope="module")

GOOD = """\
from numba import njit

LIMIT = 3


@njit
def bounded(x: int):
    return min(x, LIMIT)
"""

HANG = """\
from numba import njit


def wait_forever():
    while True:
        pass


LIMIT = wait_forever()


@njit
def bounded(x: int):
    return min(x, LIMIT)
"""

CRASH = """\
import ctypes

from numba import njit

LIMIT = len(ctypes.string_at(0))  # reads address 0: SIGSEGV


@njit
def bounded(x: int):
    return min(x, LIMIT)
"""

SYNTAX = """\
from numba import njit


@njit
def bounded(x: int:
    return min(x, LIMIT)
"""

NOISY = """\
import os
import sys

from numba import njit

print("Content-Length: 20\\r\\n\\r\\n{\\"jsonrpc\\": \\"2.0\\"}")
sys.stdout.flush()
os.write(1, b"Content-Length: 3\\r\\n\\r\\n{}\\n")
sys.stderr.write("user code writes to stderr too\\n")
LIMIT = 3


@njit
def bounded(x: int):
    return min(x, LIMIT)
"""

TIMEOUT_S = 5


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def session(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    root = tmp_path_factory.mktemp("faults")
    for name in ("hang.py", "crash.py", "syntax.py", "noisy.py"):
        (root / name).write_text(GOOD)
    # moduleLoading full: these faults are top-level code, which definitions-only loading does not run
    session = await start_session(root, settings={"timeout": TIMEOUT_S, "moduleLoading": "full"})
    yield session
    await session.shutdown()


async def _still_answers(session: Session, name: str) -> None:
    """Hover and code lenses answer, and the fixed module analyses cleanly on the next save."""
    await session.code_lenses(name)
    diagnostics = await session.save(name, GOOD)
    assert diagnostics == []
    hover = await session.hover_word(name, 8, "x", occurrence=0)  # min(x, LIMIT)
    assert hover is not None and "x: int64" in hover


async def test_hang_at_import_times_out_and_the_next_save_works(session: Session) -> None:
    await session.open("hang.py")
    diagnostics = await session.save("hang.py", HANG)
    failed = first(diagnostics, "analysis-failed")
    assert "time-out" in failed.message and f"{TIMEOUT_S} s" in failed.message
    assert failed.range.start.line + 1 in (5, 6, 9)  # where it was stuck (the loop or the call)
    assert session.process.returncode is None
    # The unchanged function keeps the types of the last analysis that loaded the module, labelled.
    kept = await session.hover_word("hang.py", 14, "x", occurrence=0)
    assert kept is not None and "x: int64" in kept and "could not load the module" in kept
    lenses = await session.code_lenses("hang.py")
    assert any(lens.command and "could not be loaded" in lens.command.title for lens in lenses)
    await _still_answers(session, "hang.py")


async def test_segfault_at_import_is_reported_and_the_next_save_works(session: Session) -> None:
    await session.open("crash.py")
    diagnostics = await session.save("crash.py", CRASH)
    failed = first(diagnostics, "analysis-failed")
    assert "crash" in failed.message and "SIGSEGV" in failed.message
    await _still_answers(session, "crash.py")


async def test_syntax_error_is_reported_and_the_next_save_works(session: Session) -> None:
    await session.open("syntax.py")
    diagnostics = await session.save("syntax.py", SYNTAX)
    assert diagnostics, "a syntax error must be reported"
    assert diagnostics[0].range.start.line + 1 == 5
    assert diagnostics[0].severity == lsp.DiagnosticSeverity.Error
    assert await session.hover("syntax.py", 4, 6) is None  # nothing to say, and no error either
    await _still_answers(session, "syntax.py")


async def test_user_output_never_reaches_the_protocol_stream(session: Session) -> None:
    await session.open("noisy.py")
    diagnostics = await session.save("noisy.py", NOISY)
    assert diagnostics == []
    hover = await session.hover_word("noisy.py", 15, "x", occurrence=0)
    assert hover is not None and "x: int64" in hover
    await _still_answers(session, "noisy.py")


async def test_a_new_timeout_applies_without_restart(session: Session) -> None:
    uri = session.uri("hang.py")
    await session.open("hang.py")
    before = session.publish_count(uri)
    session.client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"numbaLens": {"timeout": TIMEOUT_S + 2}})
    )
    try:
        assert await session.next_publish(uri, before) == []  # open documents are analysed again
        diagnostics = await session.save("hang.py", HANG)
        assert f"time-out after {TIMEOUT_S + 2} s" in first(diagnostics, "analysis-failed").message
    finally:
        session.client.workspace_did_change_configuration(
            lsp.DidChangeConfigurationParams(settings={"numbaLens": {"timeout": TIMEOUT_S}})
        )
        await session.save("hang.py", GOOD)


# --- cancellation and on-type analysis ------------------------------------------------------------
SLOW_WITH_ERROR = """\
import time

from numba import njit

LIMIT = time.sleep(60) or 3


@njit
def bounded(x: int):
    return x + (1, 2)
"""


async def test_a_newer_save_cancels_the_run_in_flight(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "slow.py").write_text(GOOD)
    # moduleLoading full: the slow module sleeps in top-level code
    session = await start_session(root, settings={"timeout": 120, "moduleLoading": "full"})
    try:
        uri = session.uri("slow.py")
        assert await session.open("slow.py") == []
        before = session.publish_count(uri)
        session.save_nowait("slow.py", SLOW_WITH_ERROR)  # sleeps 60 s at import
        await session.wait_for(
            lambda: [s for s in session.statuses if s.get("uri") == uri and s["state"] == "analyzing"][1:],
            what="the slow analysis to start",
        )
        during = await session.hover_word("slow.py", 9, "x")  # def bounded(x: int), being re-analysed
        assert during is not None and "changed since the last analysis" in during and "re-analysed" in during
        session.save_nowait("slow.py", GOOD)
        # Well before the 60 s sleep ends: the slow run was abandoned, not waited for.
        diagnostics = await session.next_publish(uri, before, timeout=40)
        assert diagnostics == []
        await asyncio.sleep(3)
        assert session.publish_count(uri) == before + 1  # the stale run published nothing
        hover = await session.hover_word("slow.py", 8, "x", occurrence=0)
        assert hover is not None and "x: int64" in hover
    finally:
        await session.shutdown()


async def test_on_type_analysis_is_debounced_and_read_from_workspace_configuration(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "on_type.py").write_text(GOOD)
    session = await start_session(
        root, settings={}, configuration={"analyzeOnType": True, "analyzeOnTypeDelay": 400}
    )
    try:
        uri = session.uri("on_type.py")
        assert await session.open("on_type.py") == []
        before = session.publish_count(uri)
        text = GOOD
        for step in range(5):  # five quick edits, none saved
            text = text.replace("min(x, LIMIT)" if step == 0 else f"x + {step - 1}", f"x + {step}")
            session.change("on_type.py", text)
            await asyncio.sleep(0.05)
        session.change("on_type.py", text.replace("x + 4", "x + (1, 2)"))
        diagnostics = await session.next_publish(uri, before)
        assert first(diagnostics, "typing-error").range.start.line + 1 == 8
        await asyncio.sleep(2)
        assert session.publish_count(uri) == before + 1  # one analysis for the burst of edits
    finally:
        await session.shutdown()


# --- no orphans ---------------------------------------------------------------------------------------
async def _started_with_worker(tmp_path: Path, module: str) -> tuple[Session, list[psutil.Process]]:
    root = copy_examples(tmp_path / "ws", ["kernels.py"])
    (root / "module.py").write_text(module)
    session = await start_session(root, settings={"timeout": 120})
    await session.open("kernels.py")
    return session, session.descendants()


async def _wait_gone(processes: list[psutil.Process], timeout: float = 30) -> None:
    _, alive = await asyncio.get_running_loop().run_in_executor(
        None, lambda: psutil.wait_procs(processes, timeout=timeout)
    )
    assert alive == [], f"left behind: {alive}"


async def test_no_process_left_after_shutdown_and_exit(tmp_path: Path) -> None:
    session, children = await _started_with_worker(tmp_path, GOOD)
    assert children, "the analysis worker should be running"
    await session.shutdown()
    assert session.process.returncode == 0
    await _wait_gone(children)


async def test_no_process_left_when_the_client_just_closes_stdin_during_a_hang(tmp_path: Path) -> None:
    session, _ = await _started_with_worker(tmp_path, GOOD)
    uri = session.uri("module.py")
    session.texts[uri] = HANG
    session.versions[uri] = 1
    session.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, HANG))
    )
    await session.wait_for(
        lambda: [s for s in session.statuses if s.get("uri") == uri and s["state"] == "analyzing"],
        what="the hanging analysis to start",
    )
    children = session.descendants()
    assert children
    assert session.process.stdin is not None
    session.process.stdin.close()
    await asyncio.wait_for(session.process.wait(), 60)
    await _wait_gone([*children])
    await session.client.stop()


async def test_no_process_left_when_the_server_is_killed(tmp_path: Path) -> None:
    session, children = await _started_with_worker(tmp_path, GOOD)
    assert children
    os.kill(session.pid, signal.SIGKILL)
    await asyncio.wait_for(session.process.wait(), 30)
    await _wait_gone(children)
    await session.client.stop()
