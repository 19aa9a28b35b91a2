"""The ecosystem check's comparison (ecosystem/compare.py, a script's module, not a package's), loaded
for the tests that compare check's output with Numba's."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def ecosystem_compare() -> Any:
    spec = importlib.util.spec_from_file_location("ecosystem_compare", ROOT / "ecosystem" / "compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module
