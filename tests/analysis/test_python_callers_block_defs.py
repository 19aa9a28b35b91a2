"""A jitted function defined in a top-level `if`/`try` block (`if sys.version_info > (3, 4):` around a
notebook's cell, a fallback in `try`) is the module's own function: the block's calls, and the module's
other code, are its Python callers, with the types Numba compiles for them."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe

SOURCE = """\
import sys

import numpy as np
from numba import njit

if sys.version_info > (3, 4):

    @njit
    def concat(a, b):
        return a + b

    concat("abc", "def")

try:

    @njit
    def scale(x, k):
        return x * k

except ImportError:
    scale = None


def use():
    return scale(np.ones(3), 2)
"""

TRUTH = """\
import json
import blocks

blocks.use()
print(json.dumps({n: [[str(a) for a in s] for s in getattr(blocks, n).signatures] for n in ("concat", "scale")}))
"""


def test_functions_defined_in_top_level_blocks_have_their_callers(tmp_path: Path) -> None:
    (tmp_path / "blocks.py").write_text(SOURCE)
    truth = run_probe(tmp_path, TRUTH)
    report = check_json(tmp_path, "blocks.py")
    shown = {f["name"]: [s["args"] for s in f["signatures"]] for f in report["functions"]}
    assert (
        shown
        == truth
        == {
            "concat": [["unicode_type", "unicode_type"]],
            "scale": [["array(float64, 1d, C)", "int64"]],
        }
    )
