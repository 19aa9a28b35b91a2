"""A notebook's analysis after an edit equals a fresh analysis of the edited notebook.

One engine analyses a notebook and then each edit of it in turn, so that every cache kept across analyses
(the incremental parse, the definitions-only slice, the module's definitions, the Python callers'
typings, the inferences) takes its part; another engine analyses each edited notebook in a worker that has
seen nothing before. Their results must be the same, timings and the lists of what was reused aside:
an edit of a jitted function's cell, of a global a jitted function of a later cell reads, of a data cell
whose call gives argument types, a cell moved and a cell deleted.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from analysis_helpers import by_code, function_named

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import FileResult
from pyserver.analysis.notebook import NotebookCell, notebook_module

IMPORTS = "import numpy as np\nfrom numba import njit"
SCALE = "SCALE = 2"
SCALED = "@njit\ndef scaled(x):\n    return x * SCALE"
SCALED_HALVED = "@njit\ndef scaled(x):\n    return x * SCALE * 0.5"  # the same header, its body edited
TOTAL = (
    "@njit\ndef total(a, n):\n    s = 0.0\n    for i in range(n):\n        s += scaled(a[i])\n    return s"
)
DATA = "data = np.ones(5)\nresult = total(data, 3)\n%timeit scaled(2)"
SHIFT = "@njit\ndef shift(a):\n    return a + (1, 2)"
SHIFT_CALL = "shift(data)"
HALF = "@njit\ndef half(v):\n    return v / 2"
HALF_CALL = "h = scaled(3)\nhalf(h)"  # half's argument type is scaled's return type
CELLS = [IMPORTS, SCALE, SCALED, TOTAL, DATA, HALF, HALF_CALL, SHIFT, SHIFT_CALL]
# Fields that say how the result was reached, not what it is.
HOW = {"elapsed_ms", "inference_ms", "compile_ms", "third_party_import_ms", "inferred", "reused"}


def _source(cells: list[str]) -> str:
    return notebook_module([NotebookCell(f"cell {n}", "code", text) for n, text in enumerate(cells)]).source


def _what(result: FileResult, root: Path) -> str:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in HOW}
        if isinstance(value, str) and "\n" in value:
            # Numba indents its nested error messages by a depth it keeps per process, which a worker
            # that has typed other errors before may hold higher: the text compared, not its indentation.
            return re.sub(r"\n +", "\n ", value)
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    text = json.dumps(strip(dataclasses.asdict(result)), sort_keys=True, default=str)
    return text.replace(str(root), "<root>")


@pytest.fixture(scope="module")
def engines(warm_engine: Callable[[str], AnalysisEngine]) -> tuple[AnalysisEngine, AnalysisEngine]:
    return warm_engine("notebook-edits"), warm_engine("notebook-fresh")


def _edits() -> list[tuple[str, list[str]]]:
    moved = [IMPORTS, SCALE, SCALED, TOTAL, SHIFT, DATA, HALF, HALF_CALL, SHIFT_CALL]
    return [
        ("the notebook", CELLS),
        (
            "a jitted function's cell",
            [IMPORTS, SCALE, SCALED, TOTAL.replace("s = 0.0", "s = 1.0"), *CELLS[4:]],
        ),
        ("a jitted function whose result a call passes", [IMPORTS, SCALE, SCALED_HALVED, *CELLS[3:]]),
        ("a global a later cell's function reads", [IMPORTS, "SCALE = 2.5", *CELLS[2:]]),
        (
            "the data cell, its line count too",
            [*CELLS[:4], DATA.replace("np.ones(5)", "np.ones(5, np.int32)\n"), *CELLS[5:]],
        ),
        ("a cell moved", moved),
        ("a cell deleted", moved[:-1]),
        ("back to the first notebook", CELLS),
    ]


def test_each_edit_gives_what_a_fresh_analysis_gives(engines: tuple[AnalysisEngine, AnalysisEngine]) -> None:
    editing, fresh = engines
    edited_path = Path(editing.workspace_root) / "nb.ipynb"
    fresh_path = Path(fresh.workspace_root) / "nb.ipynb"
    results: dict[str, FileResult] = {}
    for what, cells in _edits():
        source = _source(cells)
        after_edit = editing.analyze(edited_path, source)
        fresh.recycle()  # a worker that has analysed nothing
        from_scratch = fresh.analyze(fresh_path, source)
        assert _what(after_edit, Path(editing.workspace_root)) == _what(
            from_scratch, Path(fresh.workspace_root)
        ), what
        results[what] = after_edit
    # The edits change what they should (so the comparison above compares something).
    first, scale = results["the notebook"], results["a global a later cell's function reads"]
    assert function_named(first, "scaled").signatures[0].return_type == "int64"
    assert "float64" in [s.return_type for s in function_named(scale, "scaled").signatures]
    assert "scaled" in scale.inferred
    # A call in a cell that did not change passes what the edited cell made: typed again.
    assert [s.args for s in function_named(first, "half").signatures] == [["int64"]]
    assert [s.args for s in function_named(scale, "half").signatures] == [["float64"]]
    body_edit = results["a jitted function whose result a call passes"]
    assert [s.args for s in function_named(body_edit, "half").signatures] == [["float64"]]
    data = results["the data cell, its line count too"]
    assert function_named(data, "total").signatures[0].args[0] == "array(int32, 1d, C)"
    assert by_code(first, "typing-error") and by_code(results["a cell moved"], "typing-error")
    assert not by_code(results["a cell deleted"], "typing-error")
    assert by_code(results["a cell deleted"], "no-signature")
    assert results["a jitted function's cell"].inferred == ["total"]
