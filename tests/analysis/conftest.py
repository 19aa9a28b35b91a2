"""Fixtures for the analysis tests: one warm engine per session over a scratch workspace."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from analysis_helpers import Workspace

from pyserver.analysis.engine import AnalysisEngine


@pytest.fixture(scope="session")
def shared_engine(warm_engine: Callable[[str], AnalysisEngine]) -> AnalysisEngine:
    return warm_engine("workspace")


@pytest.fixture
def ws(shared_engine: AnalysisEngine) -> Workspace:
    return Workspace(Path(shared_engine.workspace_root), shared_engine)
