"""A function compiled in object mode (`@jit(forceobj=True)`, as PyEMD's `emd` is) runs its body as
Python: its calls of nopython functions are Python calls, typed from the object-mode function's own
callers as Numba compiles them. A declared signature of the object-mode function says nothing of the
objects its body passes on (`float64[:]` is any layout; the array a caller passes is C)."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe, shown_args

SOURCE = """\
import numba as nb
import numpy as np


@nb.njit
def inner(a):
    return a.sum()


@nb.njit
def scaled(a, k):
    return a * k


@nb.jit(forceobj=True)
def outer(a):
    return inner(a)


@nb.jit(nb.float64(nb.float64[:]), forceobj=True)
def outer_declared(a):
    b = scaled(a, 2)
    return inner(b)


outer(np.ones(3))
outer_declared(np.ones(4))
"""

TRUTH = """\
import json
import objmode as m

print(json.dumps({n: [[str(a) for a in s] for s in getattr(m, n).signatures] for n in ("inner", "scaled")}))
"""


def test_calls_in_an_object_mode_body_are_python_calls(tmp_path: Path) -> None:
    (tmp_path / "objmode.py").write_text(SOURCE)
    truth = run_probe(tmp_path, TRUTH)
    assert truth == {"inner": [["array(float64, 1d, C)"]], "scaled": [["array(float64, 1d, C)", "int64"]]}
    shown = shown_args(check_json(tmp_path, "objmode.py"))
    assert {n: shown.get(n) for n in truth} == truth
