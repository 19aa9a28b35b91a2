"""Soak: many save cycles through the language server, many debug sessions in a row.

Short by default (part of `make test`); NUMBA_LENS_SOAK=1 runs the full 300 save cycles and 50 debug
sessions and then also holds the memory goal: server plus worker grow at most 10% after warm-up.
Memory and process counts are printed as the run goes (`-s` shows them live)."""

from __future__ import annotations

import asyncio
import ctypes
import os
import sys
import time
from pathlib import Path

import psutil
import pytest

TESTS = Path(__file__).resolve().parents[1]
for helper_dir in (TESTS / "lsp", TESTS / "debug"):
    if str(helper_dir) not in sys.path:
        sys.path.append(str(helper_dir))

from dapclient import DapClient  # noqa: E402
from lsp_session import Session, copy_examples, first, start_session  # noqa: E402

FULL = os.environ.get("NUMBA_LENS_SOAK") == "1"
SAVE_CYCLES = 300 if FULL else 20
WARM_UP_CYCLES = 30 if FULL else 5
DEBUG_SESSIONS = 50 if FULL else 3
MIXED = TESTS / "debug" / "programs" / "mixed.py"
PR_SET_CHILD_SUBREAPER = 36
pytestmark = [pytest.mark.slow, pytest.mark.timeout(7200 if FULL else 900)]

# Orphans are re-parented to this process, so the counts below see them.
ctypes.CDLL("libc.so.6").prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _rss_mb(processes: list[psutil.Process]) -> float:
    total = 0
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total / (1024 * 1024)


def _our_processes() -> list[psutil.Process]:
    alive = []
    for child in psutil.Process(os.getpid()).children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                alive.append(child)
        except psutil.NoSuchProcess:
            pass
    return alive


def _report(capsys: pytest.CaptureFixture[str], text: str) -> None:
    with capsys.disabled():
        print(f"\n[soak] {text}", flush=True)


def _edit(source: str, cycle: int) -> str:
    """One function changes each cycle; every third cycle it has a typing error."""
    if cycle % 3 == 2:
        return source.replace("total = 0.0", "total = 0.0 + (1, 2)", 1)
    return source.replace("total = 0.0", f"total = {cycle}.0", 1)


def test_save_cycles_through_the_language_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {p.pid for p in _our_processes()}
    root = copy_examples(tmp_path / "ws", ["kernels.py"])
    original = (root / "kernels.py").read_text(encoding="utf-8")
    assert "total = 0.0" in original
    samples: list[tuple[int, float, int]] = []

    async def drive() -> None:
        session: Session = await start_session(root, settings={"timeout": 120})
        try:
            await session.open("kernels.py")
            started = time.perf_counter()
            for cycle in range(SAVE_CYCLES):
                diagnostics = await session.save("kernels.py", _edit(original, cycle))
                if cycle % 3 == 2:
                    first(diagnostics, "typing-error")
                else:
                    assert [d for d in diagnostics if d.code == "typing-error"] == []
                if cycle + 1 == WARM_UP_CYCLES or (cycle + 1) % 50 == 0 or cycle + 1 == SAVE_CYCLES:
                    tree = _tree(session.pid)
                    samples.append((cycle + 1, _rss_mb(tree), len(tree)))
                    _report(
                        capsys,
                        f"save {cycle + 1}/{SAVE_CYCLES}: server+worker {samples[-1][1]:.0f} MB, "
                        f"{len(tree)} processes, {(time.perf_counter() - started) / (cycle + 1) * 1000:.0f} ms/save",
                    )
            assert await session.save("kernels.py", original) == []
            hover = await session.hover_word("kernels.py", _line_of(original, "total = 0.0"), "total")
            assert hover is not None and "float64" in hover
        finally:
            await session.shutdown()

    asyncio.run(drive())
    leftover = [p for p in _our_processes() if p.pid not in before]
    _gone, alive = psutil.wait_procs(leftover, timeout=30)
    assert alive == [], f"left behind: {alive}"
    warm = next(rss for cycle, rss, _ in samples if cycle == WARM_UP_CYCLES)
    final_cycle, final_rss, final_processes = samples[-1]
    growth = (final_rss - warm) / warm
    _report(
        capsys,
        f"memory after warm-up {warm:.0f} MB, after {final_cycle} saves {final_rss:.0f} MB ({growth:+.1%})",
    )
    assert final_processes == 2, "the server and one warm worker"
    if FULL:
        assert growth <= 0.10, f"memory grew {growth:.1%} after warm-up"
        assert final_rss <= 400, f"server plus worker use {final_rss:.0f} MB"


def _line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.split("\n"), 1) if text in line)


def test_debug_sessions_in_a_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {p.pid for p in _our_processes()}
    for number in range(1, DEBUG_SESSIONS + 1):
        started = time.perf_counter()
        dap = DapClient(str(tmp_path / f"dap{number}.log"))
        try:
            assert dap.start(MIXED, breakpoints={12: {}})["success"]
            stop = dap.stopped()
            frames = dap.top_frames(stop["threadId"])
            assert frames[0]["name"] == "walk(array(float64, 1d, C), int64)"
            variables = dap.scope_variables(frames[0]["id"])
            assert variables["Arguments"]["n"]["value"] == "4"
            peak = _rss_mb(_tree(dap.proc.pid))
            processes = len(_tree(dap.proc.pid))
            dap.ok("setBreakpoints", {"source": {"path": str(MIXED)}, "breakpoints": []})
            dap.ok("continue", {"threadId": stop["threadId"]})
            assert dap.event("exited")["exitCode"] == 0
            dap.event("terminated")
        finally:
            dap.close()
        leftover = [p for p in _our_processes() if p.pid not in before]
        _gone, alive = psutil.wait_procs(leftover, timeout=30)
        assert alive == [], f"session {number} left behind: {alive}"
        _report(
            capsys,
            f"debug session {number}/{DEBUG_SESSIONS}: {time.perf_counter() - started:.1f} s, "
            f"adapter+gdb+debuggee {peak:.0f} MB in {processes} processes while stopped, 0 left after",
        )
