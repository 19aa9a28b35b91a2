"""A dynamic `@guvectorize("()->()")` gufunc (a layout, no signatures) called from Python with its inputs
and outputs (`twice(inp, out)`, or `out=`): Numba compiles its kernel for the element types of those
arguments, an input of no core dimension as its scalar and every other argument as an array of its core
dimensions (an output of none, one), any layout. `check` gives the kernel those types, as Numba's run
compiles them; a call without its outputs (which Numba refuses) gives none."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe

MODULE = """\
import numpy as np
from numba import guvectorize


@guvectorize("()->()")
def twice(inp, out):
    out[()] = inp * 2


@guvectorize("(n),()->(n)")
def shift(values, by, out):
    for i in range(values.shape[0]):
        out[i] = values[i] + by


@guvectorize("(n)->()")
def never_given_outputs(values, out):
    out[0] = values.sum()


def run():
    data = np.arange(5, dtype=np.float32)
    result = np.zeros_like(data)
    twice(data, result)
    grid = np.ones((3, 4))
    shift(grid, 2, out=np.empty_like(grid))
    never_given_outputs(grid)
"""

TRUTH = """\
import json

import kernels

try:
    kernels.run()
except TypeError:
    pass  # the call without outputs: Numba's 'Too few arguments'
print(json.dumps({
    name: [[str(a) for a in sig.args] for sig in getattr(kernels, name)._dispatcher.overloads]
    for name in ("twice", "shift", "never_given_outputs")
}))
"""


def test_dynamic_gufuncs_get_the_kernel_their_python_calls_compile(tmp_path: Path) -> None:
    (tmp_path / "kernels.py").write_text(MODULE)
    truth = run_probe(tmp_path, TRUTH)
    assert truth == {
        "twice": [["float32", "array(float32, 1d, A)"]],
        "shift": [["array(float64, 1d, A)", "int64", "array(float64, 1d, A)"]],
        "never_given_outputs": [],
    }
    report = check_json(tmp_path, "kernels.py")
    shown = {f["name"]: [s["args"] for s in f["signatures"]] for f in report["functions"]}
    assert shown == truth
