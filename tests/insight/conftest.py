"""Fixtures for the insight tests: one warm engine per session over a scratch workspace."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pyserver.analysis.engine import AnalysisEngine


@pytest.fixture(scope="session")
def insight_engine(warm_engine: Callable[[str], AnalysisEngine]) -> AnalysisEngine:
    return warm_engine("insight")
