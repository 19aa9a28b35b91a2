"""Shared test fixtures: paths, the interpreter under test, and a no-orphans check."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from pyserver.analysis.engine import AnalysisEngine

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES


@pytest.fixture
def python_exe() -> str:
    return sys.executable


@pytest.fixture(scope="session")
def warm_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], AnalysisEngine]]:
    """`warm_engine(name)`: one started analysis engine per name for the whole session, over a scratch
    workspace of its own; at the end each is closed and its worker reaped (psutil raises TimeoutExpired
    if a worker outlived close(): no orphans)."""
    engines: dict[str, AnalysisEngine] = {}

    def get(name: str) -> AnalysisEngine:
        if name not in engines:
            engine = AnalysisEngine(tmp_path_factory.mktemp(name), timeout_s=60.0)
            engine.start()
            engines[name] = engine
        return engines[name]

    yield get
    for engine in engines.values():
        pid = engine.worker_pid
        engine.close()
        if pid is not None:
            with contextlib.suppress(psutil.NoSuchProcess):
                psutil.Process(pid).wait(timeout=10)
