"""A library that edits its functions' source and jits the copies (`exec(compile(edited, "<generated>",
"exec"), namespace)`, then `njit(namespace[name])`): Numba compiles functions whose lines are no file's,
so `record` cannot place their types; it says so, once per function, instead of dropping them silently."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from record_helpers import pyserver

LIBRARY = """
def weighted_sum(zs, ws):
    total = 0.0
    for i in range(len(zs)):
        total += zs[i] * ws[i]
    return total


def scaled(x, k):
    return x * k
"""

PROGRAM = """
import inspect

import numba
import numpy as np

import lib

namespace = dict(vars(lib))
for name in ("weighted_sum", "scaled"):
    source = inspect.getsource(getattr(lib, name)).replace("total = 0.0", "total = 0.0  # edited")
    exec(compile(source, "<generated>", "exec"), namespace)
    globals()[name] = numba.njit(namespace[name])
print(weighted_sum(np.array([0.5, 0.5]), np.array([2.0, 4.0])), scaled(2.0, 3), scaled(1.0, 2))
"""


def test_compiles_of_generated_copies_are_noted(tmp_path: Path) -> None:
    (tmp_path / "lib.py").write_text(LIBRARY)
    (tmp_path / "prog.py").write_text(PROGRAM)
    recorded = pyserver(tmp_path, "record", "--", sys.executable, "prog.py")
    assert recorded.returncode == 0, recorded.stderr
    assert "3.0 6.0 2.0" in recorded.stdout
    data = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())
    assert data["functions"] == {}
    assert sorted(data["notes"]) == [
        f"lib.py::{name}: not recorded: Numba compiled a copy of it made from generated text (<generated>), "
        "whose lines are no file's"
        for name in ("scaled", "weighted_sum")
    ]
    assert recorded.stderr.count("not recorded: Numba compiled a copy") == 2
