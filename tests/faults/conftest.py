"""Fault-injection fixtures: a process census around every test (see fault_helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fault_helpers import Census


@pytest.fixture
def census() -> Iterator[Census]:
    census = Census()
    yield census
    census.assert_none_left()
