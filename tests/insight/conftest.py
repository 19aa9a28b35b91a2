"""Fixtures for the insight tests: one warm engine per session over a scratch workspace."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import psutil
import pytest

from pyserver.analysis.engine import AnalysisEngine


@pytest.fixture(scope="session")
def insight_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AnalysisEngine]:
    root = tmp_path_factory.mktemp("insight")
    engine = AnalysisEngine(root, timeout_s=60.0)
    engine.start()
    yield engine
    pid = engine.worker_pid
    engine.close()
    if pid is not None:  # no orphan: psutil raises TimeoutExpired if the worker outlived close()
        with contextlib.suppress(psutil.NoSuchProcess):
            psutil.Process(pid).wait(timeout=10)
