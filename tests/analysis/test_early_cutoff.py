"""Early cutoff: a caller's inference is reused after an edit of its callee only while the callee answers
the caller's questions (argument types -> return type) as before. The ground truth is a fresh analyzer:
after every edit of a sequence, the warm analyzer's results must equal those of an analyzer that never
saw an earlier text (types, variables, return types, diagnostics)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import FileResult

BASE = textwrap.dedent(
    """
    import numpy as np
    from numba import njit


    @njit
    def leaf(x, scale=2):
        return x * scale + 1


    @njit
    def pair(a):
        return a[0], a.sum()


    @njit
    def middle(a: "float64[::1]", n: int):
        total = 0
        for i in range(n):
            total += leaf(i)
        first, s = pair(a)
        return total + leaf(first, scale=3) + s


    @njit
    def apply(f, v):
        return f(v)


    @njit
    def top(a: "float64[::1]", n: int):
        t = middle(a, n)
        return apply(leaf, t)


    @njit
    def countdown(k: int):
        if k <= 0:
            return 0
        return countdown(k - 1) + 1
    """
)

# Each edit is applied to the text before it; the comment says what the callers should see.
EDITS = [
    ("return x * scale + 1", "return x * scale + 2"),  # same answers: callers reused
    ("return x * scale + 2", "return x * scale + 2.5"),  # leaf returns float64 for ints now
    ("def leaf(x, scale=2):", "def leaf(x, scale=2.0):"),  # a default's type: folded arguments change
    ("return a[0], a.sum()", "return a[0], a.sum() + 1"),  # same answers
    ("return a[0], a.sum() + 1", "return a.sum(), a[0] > 0"),  # pair's second element becomes a bool
    ("return a.sum(), a[0] > 0", "return a.sum(), undefined_name"),  # pair no longer types: an error
    ("return a.sum(), undefined_name", "return a[0], a.sum()"),  # fixed again
    ("def leaf(x, scale=2.0):", "def leaf(x, factor=2.0, scale=2.0):"),  # a new parameter before scale
    ("if k <= 0:", "if k < 1:"),  # recursion: never reused through itself
]


def _no_address(text: str | None) -> str | None:
    # A function's type names the object (`<function leaf at 0x...>`): each analyzer loads its own.
    return None if text is None else re.sub(r" at 0x[0-9a-f]+", " at 0x?", text)


def summary(result: FileResult) -> dict[str, Any]:
    functions = {
        f.name: [
            (
                tuple(s.args),
                s.source,
                s.return_type,
                s.ok,
                s.error_count,
                sorted((v.name, _no_address(v.type), v.line) for v in s.variables),
            )
            for s in f.signatures
        ]
        for f in result.functions
    }
    diagnostics = sorted(
        (d.code, _no_address(d.message), d.range.start.line, d.range.start.character, d.function or "")
        for d in result.diagnostics
    )
    return {"functions": functions, "diagnostics": diagnostics}


def test_warm_results_equal_a_fresh_analyzers_after_every_edit(tmp_path: Path) -> None:
    path = tmp_path / "cutoff_chain.py"
    text = BASE
    path.write_text(text)
    reused_callers = 0
    # Each analyzer in its own worker process: two in one process would share its loaded modules.
    warm = AnalysisEngine(tmp_path, trusted=True)
    try:
        first = warm.analyze(path, text)
        assert {f.name for f in first.functions if f.signatures} >= {"middle", "top", "leaf", "pair"}
        for old, new in EDITS:
            assert old in text, old
            text = text.replace(old, new)
            path.write_text(text)
            after = warm.analyze(path, text)
            cold = AnalysisEngine(tmp_path, trusted=True)
            try:
                fresh = cold.analyze(path, text)
            finally:
                cold.close()
            assert summary(after) == summary(fresh), (old, new)
            reused_callers += "middle" in after.reused
    finally:
        warm.close()
    # The edits that leave leaf's and pair's answers unchanged reuse middle (the first and the fourth).
    assert reused_callers >= 2


def test_a_callee_answer_change_reinfers_the_caller(tmp_path: Path) -> None:
    path = tmp_path / "cutoff_answer.py"
    text = BASE
    path.write_text(text)
    engine = AnalysisEngine(tmp_path, trusted=True)
    try:
        engine.analyze(path, text)
        same = engine.analyze(path, text.replace("return x * scale + 1", "return x * scale - 1"))
        assert "leaf" in same.inferred and "middle" in same.reused
        changed = engine.analyze(path, text.replace("return x * scale + 1", "return x * scale + 0.5"))
        assert {"leaf", "middle", "top"} <= set(changed.inferred)
        middle = next(f for f in changed.functions if f.name == "middle").signatures[0]
        assert middle.return_type == "float64"
    finally:
        engine.close()
