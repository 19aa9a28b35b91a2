"""Fault injection in analysis, through the real language server: the worker killed mid-run, a module
that allocates past the memory limit, one that forks, spawns and starts threads at import, a file
deleted while it is analysed, saves racing each other. Each ends with a clear message, a server that
still answers (the next save works), and no process left behind (a census before and after)."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import psutil
import pytest_asyncio
from fault_helpers import Census
from lsp_session import Session, first, start_session
from lsprotocol import types as lsp

GOOD = """\
from numba import njit


@njit
def bounded(x: int):
    return min(x, 3)
"""

BAD = """\
from numba import njit


@njit
def bounded(x: int):
    return x + (1, 2)
"""


def slow_module(marker: Path, body: str, *, error: bool = False) -> str:
    """A module that says it started (a marker file), then does `body` at import."""
    return (
        f"import time\nfrom numba import njit\n\nopen({str(marker)!r}, 'w').close()\n{body}\n\n\n"
        "@njit\ndef bounded(x: int):\n    return " + ("x + (1, 2)" if error else "min(x, 3)") + "\n"
    )


@pytest_asyncio.fixture
async def session(tmp_path: Path, census: Census) -> AsyncIterator[Session]:
    root = tmp_path / "ws"
    root.mkdir()
    # moduleLoading full: these faults are top-level code, which definitions-only loading never runs
    # (tests/analysis/test_definitions_loading.py shows that)
    session = await start_session(root, settings={"timeout": 60, "moduleLoading": "full"})
    try:
        yield session
    finally:
        await session.shutdown()


async def wait_for_file(session: Session, path: Path, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while not path.exists():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def worker_of(session: Session) -> psutil.Process:
    direct = psutil.Process(session.pid).children()  # a fork of the worker has the same command line
    workers = [p for p in direct if "pyserver.analysis.worker" in " ".join(p.cmdline())]
    assert len(workers) == 1, workers
    return workers[0]


async def still_works(session: Session, name: str) -> None:
    """The next save of a correct module is analysed cleanly, and hover answers."""
    assert await session.save(name, BAD) != []
    assert await session.save(name, GOOD) == []
    hover = await session.hover_word(name, 6, "x")
    assert hover is not None and "x: int64" in hover
    assert session.process.returncode is None


async def test_worker_killed_mid_run(session: Session, tmp_path: Path) -> None:
    (session.root / "victim.py").write_text(GOOD)
    assert await session.open("victim.py") == []
    marker = tmp_path / "started"
    uri = session.uri("victim.py")
    before = session.publish_count(uri)
    session.save_nowait("victim.py", slow_module(marker, "time.sleep(120)"))
    await wait_for_file(session, marker, "the module to start")
    worker = worker_of(session)
    worker.send_signal(signal.SIGKILL)
    diagnostics = await session.next_publish(uri, before)
    failed = first(diagnostics, "analysis-failed")
    assert "crashed the analysis worker" in failed.message and "SIGKILL" in failed.message
    await still_works(session, "victim.py")
    assert worker_of(session).pid != worker.pid  # a new worker


async def test_module_allocating_past_the_memory_limit(session: Session) -> None:
    (session.root / "hog.py").write_text(GOOD)
    assert await session.open("hog.py") == []
    hog = "blob = b'x' * (1700 * 1024 * 1024)  # past the 1500 MB limit\ntime.sleep(60)"
    diagnostics = await session.save("hog.py", slow_module(session.root / "hog_started", hog))
    failed = first(diagnostics, "analysis-failed")
    assert "1500 MB" in failed.message and "restarted" in failed.message
    await still_works(session, "hog.py")


FORKS = """\
import os
import subprocess
import threading
import time

from numba import njit

child = os.fork()
if child == 0:  # the forked copy of the worker: outlives nothing
    time.sleep(300)
    os._exit(0)
helper = subprocess.Popen(["sleep", "300"])
threading.Thread(target=time.sleep, args=(300,), name="user-thread").start()  # not a daemon


@njit
def bounded(x: int):
    return min(x, 3)
"""


async def test_module_that_forks_spawns_and_starts_threads_at_import(tmp_path: Path) -> None:
    census = Census()  # checked here, not in a fixture, so the result is this test's own
    root = tmp_path / "ws"
    root.mkdir()
    (root / "forks.py").write_text(GOOD)
    session = await start_session(root, settings={"timeout": 60, "moduleLoading": "full"})
    try:
        assert await session.open("forks.py") == []
        assert await session.save("forks.py", FORKS) == []
        hover = await session.hover_word("forks.py", 18, "x")
        assert hover is not None and "x: int64" in hover
        assert any(p.name() == "sleep" for p in session.descendants()), "the module's subprocess should run"
        await still_works(session, "forks.py")
    finally:
        await session.shutdown()
    # The fork, `sleep` and the worker end with the server.
    census.assert_none_left()


async def test_file_deleted_while_it_is_analysed(session: Session, tmp_path: Path) -> None:
    (session.root / "deleted.py").write_text(GOOD)
    assert await session.open("deleted.py") == []
    marker = tmp_path / "deleted_started"
    uri = session.uri("deleted.py")
    before = session.publish_count(uri)
    session.save_nowait("deleted.py", slow_module(marker, "time.sleep(3)", error=True))
    await wait_for_file(session, marker, "the module to start")
    os.unlink(session.root / "deleted.py")
    # The buffer is what is analysed: its error is reported although the file is gone.
    diagnostics = await session.next_publish(uri, before)
    assert first(diagnostics, "typing-error").range.start.line + 1 == 10
    # Saved again while the file is still missing (the editor keeps the buffer): analysed all the same.
    before = session.publish_count(uri)
    session.change("deleted.py", GOOD)
    session.client.text_document_did_save(lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    assert await session.next_publish(uri, before) == []
    await still_works(session, "deleted.py")


async def test_two_saves_racing(session: Session) -> None:
    for name in ("a.py", "b.py"):
        (session.root / name).write_text(GOOD)
        assert await session.open(name) == []
    uri_a, uri_b = session.uri("a.py"), session.uri("b.py")
    # Two documents saved at the same moment, each several times in a burst: each ends with the result
    # of its last save, and no stale result is published after it.
    for round_number in range(4):
        session.save_nowait("a.py", BAD if round_number % 2 == 0 else GOOD)
        session.save_nowait("b.py", GOOD if round_number % 2 == 0 else BAD)
    final_a, final_b = GOOD, BAD
    session.save_nowait("a.py", final_a)
    session.save_nowait("b.py", final_b)

    def settled() -> bool:
        return session.diagnostics(uri_a) == [] and bool(session.diagnostics(uri_b))

    await session.wait_for(settled, what="both documents to show their last save")
    counts = (session.publish_count(uri_a), session.publish_count(uri_b))
    await asyncio.sleep(5)  # nothing stale arrives afterwards
    assert (session.publish_count(uri_a), session.publish_count(uri_b)) == counts
    assert session.diagnostics(uri_a) == []
    assert first(session.diagnostics(uri_b), "typing-error").range.start.line + 1 == 6
    await still_works(session, "a.py")
