"""Variables that Numba's own passes add from Numba's source (the loop canonicalisation of
`literal_unroll` over a heterogeneous dict's `.values()` / `.items()` makes `get_range` temporaries) are
not the user's: neither the hover, nor `--variables`, nor a recorded typemap shows them, each placed at a
line of Numba's files. The user's own variables of the same function are all there."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json

SOURCE = """\
import numpy as np
from numba import literal_unroll, njit


@njit
def mixed_values():
    a = {'a': 1, 'b': 'string', 'c': np.arange(5)}
    total = 0
    for v in literal_unroll(a.values()):
        total += 1
    for item in literal_unroll(a.items()):
        k, v = item
        total += len(k)
    return total
"""


def test_only_the_users_variables_are_shown(tmp_path: Path) -> None:
    (tmp_path / "unroll.py").write_text(SOURCE)
    report = check_json(tmp_path, "--variables", "unroll.py")
    (function,) = report["functions"]
    (signature,) = function["signatures"]
    names = {v["name"] for v in signature["variables"]}
    assert {"a", "total", "v", "item", "k"} <= names
    lines = {v["line"] for v in signature["variables"]}
    assert lines <= set(range(5, 16)), sorted(lines)
    assert not [n for n in names if "Canonical" in n or "CANONICAL" in n], names
