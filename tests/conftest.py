"""Shared test fixtures: paths, the interpreter under test, and a no-orphans check."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES


@pytest.fixture
def python_exe() -> str:
    return sys.executable
