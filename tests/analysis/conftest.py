"""Fixtures for the analysis tests: one warm engine per session over a scratch workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from analysis_helpers import Workspace

from pyserver.analysis.engine import AnalysisEngine


@pytest.fixture(scope="session")
def shared_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AnalysisEngine]:
    root = tmp_path_factory.mktemp("workspace")
    engine = AnalysisEngine(root, timeout_s=60.0)
    engine.start()
    yield engine
    engine.close()


@pytest.fixture
def ws(shared_engine: AnalysisEngine) -> Workspace:
    return Workspace(Path(shared_engine.workspace_root), shared_engine)
