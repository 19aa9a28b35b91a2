"""A call through a name the caller binds once to a jitted function (`func = kernel`, or one of several:
`func = kernel_pw if pointwise else kernel_av`, as a library picks its pointwise or averaged kernel) is a
call of that function: its arguments type it at first sight, as Numba compiles it when the call picks
it. A name bound more than once, or a local that shadows the function, gives nothing."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe, shown_args

SOURCE = """\
import numpy as np
from numba import njit


@njit
def kernel_pw(x, out):
    for i in range(x.size):
        out[i] = x[i] * 2.0


@njit
def kernel_av(x, out):
    for i in range(x.size):
        out[i] = x[i] * 0.5


@njit
def scale(x, k):
    return x * k


@njit
def rebound(x):
    return x + 1


@njit
def other(x):
    return x - 1


@njit
def kept(x):
    return x * 3


def identity(kept):
    return kept  # its parameter, not the function


KEPT = {"kept": kept}


def discretise(x, pointwise):
    out = np.empty_like(x)
    func = kernel_pw if pointwise else kernel_av
    func(x, out)
    return out


def twice(values):
    step = rebound
    step = other
    return step(values)


def shadowing(scale):
    func = scale
    return func(2)


apply = scale
apply(np.arange(4), 3.0)
discretise(np.linspace(0.0, 1.0, 5), True)
discretise(np.linspace(0.0, 1.0, 5), False)
twice(np.ones(2))
KEPT["kept"](np.ones(2))
"""

TRUTH = """\
import json
import picks

print(json.dumps({
    n: [[str(a) for a in s] for s in getattr(picks, n).signatures]
    for n in ("kernel_pw", "kernel_av", "scale", "rebound", "other")
}))
"""


def test_calls_through_a_local_alias_type_the_function(tmp_path: Path) -> None:
    (tmp_path / "picks.py").write_text(SOURCE)
    truth = run_probe(tmp_path, TRUTH)
    assert truth == {
        "kernel_pw": [["array(float64, 1d, C)", "array(float64, 1d, C)"]],
        "kernel_av": [["array(float64, 1d, C)", "array(float64, 1d, C)"]],
        "scale": [["array(int64, 1d, C)", "float64"]],
        "rebound": [],
        "other": [["array(float64, 1d, C)"]],
    }
    shown = shown_args(check_json(tmp_path, "picks.py"))
    assert {n: shown.get(n, []) for n in ("kernel_pw", "kernel_av", "scale")} == {
        n: truth[n] for n in ("kernel_pw", "kernel_av", "scale")
    }
    # `step` is bound twice: which function it calls is not a single assignment's
    assert shown.get("rebound", []) == [] and shown.get("other", []) == []


def test_a_function_only_called_through_a_value_says_where_that_value_is(tmp_path: Path) -> None:
    (tmp_path / "picks.py").write_text(SOURCE)
    report = check_json(tmp_path, "picks.py")
    [note] = [d for d in report["diagnostics"] if d["function"] == "kept" and d["code"] == "no-signature"]
    line = SOURCE.splitlines().index('KEPT = {"kept": kept}') + 1
    assert f"It is used as a value at line {line}" in note["message"]
    assert "calls it by its name" in note["message"]


CHAIN = """\
from numba import njit


@njit
def inner(a):
    return a + 1


@njit
def outer(a):
    return inner(a)
"""


def test_a_function_only_called_by_untyped_jitted_code_names_that_caller(tmp_path: Path) -> None:
    (tmp_path / "chain.py").write_text(CHAIN)
    report = check_json(tmp_path, "chain.py")
    [note] = [d for d in report["diagnostics"] if d["function"] == "inner" and d["code"] == "no-signature"]
    assert "The jitted function 'outer' calls it (line 11) and gave it no types" in note["message"]
    [outer] = [d for d in report["diagnostics"] if d["function"] == "outer" and d["code"] == "no-signature"]
    assert "calls it (line" not in outer["message"]
