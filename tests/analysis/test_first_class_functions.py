"""Dispatchers with one explicit signature passed as values (`apply(10, foo, bar, baz)` into `*functions`,
Numba's 0.49 release demo; a tuple of them): Numba's dispatcher types the values as first-class
functions, `UniTuple(FunctionType[int64(int64)] x 3)`, and the function compiles for that. `check` gives
the same signature from the Python call, and no error: the analysis records explicit signatures instead
of compiling them, and a dispatcher's function type comes from the signature as written."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe

MODULE = """\
from numba import njit


@njit("intp(intp)")
def foo(x):
    return x + 1


@njit("intp(intp)")
def bar(x):
    return x + 2


@njit
def apply(arg, *functions):
    for fn in functions:
        arg = fn(arg)
    return arg


@njit
def apply_all(functions, arg):
    total = 0
    for fn in functions:
        total += fn(arg)
    return total


def run():
    apply(10, foo, bar)
    apply_all((foo, bar), 3)
"""

TRUTH = """\
import json
import warnings

warnings.simplefilter("ignore")
import chain

chain.run()
print(json.dumps({n: [[str(a) for a in s] for s in getattr(chain, n).signatures] for n in ("apply", "apply_all")}))
"""


def test_dispatchers_passed_as_values_are_first_class_functions(tmp_path: Path) -> None:
    (tmp_path / "chain.py").write_text(MODULE)
    truth = run_probe(tmp_path, TRUTH)
    assert truth == {
        "apply": [["int64", "UniTuple(FunctionType[int64(int64)] x 2)"]],
        "apply_all": [["UniTuple(FunctionType[int64(int64)] x 2)", "int64"]],
    }
    report = check_json(tmp_path, "chain.py")
    assert [d for d in report["diagnostics"] if d["severity"] == "error"] == []
    shown = {f["name"]: [s["args"] for s in f["signatures"]] for f in report["functions"]}
    assert {name: shown[name] for name in truth} == truth
