"""slice_memo: after an edit of a jitted function's body the remembered slice is the one slicing the edited
module afresh gives (same statements kept, same skipped lines and reasons), and it is reused only then."""

from __future__ import annotations

import ast

import pytest

from pyserver.analysis.worker.load import slice_memo, toplevel_slice
from pyserver.analysis.worker.load.incremental_parse import IncrementalParser

HEADER = "import numpy as np\nfrom numba import njit\nSCALE = 2.0\nLIMIT = 3\n"
DATA = "data = np.ones(10)\nresult = kernel(data)\nprint(result)\nif LIMIT > 2:\n    extra = np.zeros(3)\n    print(extra)\n"


def kernel(body: str) -> str:
    return f"@njit\ndef kernel(a):\n    total = 0.0\n    for x in a:\n        {body}\n    return total\n"


def helper(body: str) -> str:
    return f"def helper(x):\n    {body}\n    return x\n"


def outcome(sliced: toplevel_slice.TopLevelSlice) -> tuple[object, ...]:
    return (
        [ast.dump(statement, include_attributes=True) for statement in sliced.tree.body],
        [(s.line, s.end_line, s.reason) for s in sliced.skipped],
        sliced.future_flags,
        sliced.unavailable,
    )


@pytest.mark.parametrize(
    ("edits", "reused"),
    [
        # Only the jitted body changes, the names it reads do not: the last slice is reused.
        ([kernel("total += x * 1.5"), kernel("total += x * 2.5"), kernel("total -= x")], 2),
        # The body starts reading SCALE: SCALE's statement must be kept now, so the module is sliced again.
        ([kernel("total += x"), kernel("total += x * SCALE"), kernel("total += x * SCALE * 2")], 1),
        # A body with an import or a nested function is sliced again whenever it changes.
        ([kernel("import math; total += x"), kernel("import math; total += x * 2")], 0),
    ],
)
def test_a_remembered_slice_is_the_fresh_slice(
    edits: list[str], reused: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    sliced_afresh = []
    original = toplevel_slice.slice_module

    def counting(*args: object, **kwargs: object) -> toplevel_slice.TopLevelSlice:
        sliced_afresh.append(1)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(toplevel_slice, "slice_module", counting)
    parser = IncrementalParser()
    path = f"/nowhere/memo_{len(edits)}_{reused}.py"
    for text in edits:
        source = HEADER + helper("x += 1") + text + DATA
        tree = parser.parse(source, path)
        remembered = slice_memo.remembered_slice(path, tree, source)
        assert outcome(remembered) == outcome(original(tree, source=source))
        # The edited def in the slice is the new tree's (what the loader runs), not the last one's.
        assert any(statement is node for statement in remembered.tree.body for node in tree.body)
    assert len(edits) - len(sliced_afresh) == reused


def test_a_plain_function_body_edit_slices_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain function's body decides what calling it does (a print makes a call of it an effect)."""
    parser = IncrementalParser()
    path = "/nowhere/memo_plain.py"
    calls = HEADER + "value = helper(3)\n" + kernel("total += x * value")
    for body in ("x += 1", "print(x)"):
        source = helper(body) + calls
        tree = parser.parse(source, path)
        remembered = slice_memo.remembered_slice(path, tree, source)
        assert outcome(remembered) == outcome(toplevel_slice.slice_module(tree, source=source))
    skipped = {s.line for s in remembered.skipped}
    assert source.split("\n").index("value = helper(3)") + 1 in skipped
