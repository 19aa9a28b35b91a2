"""Fixtures for the analysis tests: one warm engine per session over a scratch workspace."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from analysis_helpers import Workspace

from pyserver.analysis.engine import AnalysisEngine


@pytest.fixture(scope="session")
def shared_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AnalysisEngine]:
    root = tmp_path_factory.mktemp("workspace")
    engine = AnalysisEngine(root, timeout_s=60.0)
    engine.start()
    yield engine
    pid = engine.worker_pid
    engine.close()
    if pid is not None:  # no orphan: psutil raises TimeoutExpired if the worker outlived close()
        with contextlib.suppress(psutil.NoSuchProcess):
            psutil.Process(pid).wait(timeout=10)


@pytest.fixture
def ws(shared_engine: AnalysisEngine) -> Workspace:
    return Workspace(Path(shared_engine.workspace_root), shared_engine)
