"""Several loaders in one process (the tests make one per workspace) each put a finder on sys.meta_path.
A module none of them finds must cost each finder a few lookups, not one per ordering of the finders: a
finder that asked the others, each asking the rest again, made such an import take minutes with a dozen
loaders."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from pyserver.analysis.worker.load.loader import Loader


def test_a_module_no_finder_finds_is_looked_up_a_few_times_per_loader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = list(sys.meta_path)
    lookups = [0]
    path_finder_find_spec = importlib.machinery.PathFinder.find_spec

    def counted(cls: Any, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname == "numba_lens_no_such_module":
            lookups[0] += 1
        return path_finder_find_spec(fullname, path, target)

    try:
        for i in range(7):
            Loader(tmp_path / f"workspace{i}")
        finders = len(sys.meta_path)  # the loaders' and any an earlier test's loaders left
        monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", classmethod(counted))
        assert importlib.util.find_spec("numba_lens_no_such_module") is None
    finally:
        sys.meta_path[:] = before
    # each loader's finder: its own lookup and the other finders' (PathFinder's), and PathFinder itself
    assert 0 < lookups[0] <= 3 * finders, (lookups[0], finders)
