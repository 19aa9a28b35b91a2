"""A dispatcher made at run time with a signature that declares its return type (`nb.njit(UniTuple(
float64[:], 2)(float64[:], float64[:]))(self._calculate_numpy)` in a model's `__init__`): Numba casts the
function's value to the declared type, here from C to any layout. After `record`, `check` shows the
return type Numba compiled, not the one typing the function again infers; a dispatcher that compiles what
its calls ask for keeps its inferred return type."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from record_helpers import pyserver

MODULE = """
import numba as nb
import numpy as np


class Groundwater:
    def __init__(self):
        self._calculate = nb.njit(
            nb.types.UniTuple(nb.float64[:], 2)(nb.float64[:], nb.float64[:]), fastmath=True
        )(self._calculate_numpy)
        self._scale = nb.njit(self._scale_numpy)

    @staticmethod
    def _calculate_numpy(area, storage):
        flow = storage * area
        storage = storage / area
        return storage, flow

    @staticmethod
    def _scale_numpy(values, k):
        return values * k
"""

PROGRAM = """
import json
import sys

import numpy as np

from groundwater import Groundwater

model = Groundwater()
model._calculate(np.ones(4), np.ones(4))
model._scale(np.ones(3), 2.0)
json.dump(
    {
        name: [str(sig) for sig in dispatcher.nopython_signatures]
        for name, dispatcher in (
            ("Groundwater._calculate_numpy", model._calculate),
            ("Groundwater._scale_numpy", model._scale),
        )
    },
    open(sys.argv[1], "w"),
)
"""


def test_a_declared_return_type_is_the_one_numba_compiled(tmp_path: Path) -> None:
    (tmp_path / "groundwater.py").write_text(MODULE)
    (tmp_path / "prog.py").write_text(PROGRAM)
    truth_file = tmp_path / "truth.json"
    recorded = pyserver(tmp_path, "record", "--", sys.executable, "prog.py", str(truth_file))
    assert recorded.returncode == 0, recorded.stderr
    truth = json.loads(truth_file.read_text())
    assert truth["Groundwater._calculate_numpy"] == [
        "(Array(float64, 1, 'A', False, aligned=True), Array(float64, 1, 'A', False, aligned=True))"
        " -> UniTuple(array(float64, 1d, A) x 2)"
    ]
    after = json.loads(pyserver(tmp_path, "check", "groundwater.py", "--format", "json").stdout)
    shown = {
        f["name"]: [(s["args"], s["return_type"], s["source"]) for s in f["signatures"]]
        for f in after["functions"]
    }
    assert shown["Groundwater._calculate_numpy"] == [
        (
            ["array(float64, 1d, A)", "array(float64, 1d, A)"],
            "UniTuple(array(float64, 1d, A) x 2)",
            "recorded",
        )
    ]
    assert shown["Groundwater._scale_numpy"] == [
        (["array(float64, 1d, C)", "float64"], "array(float64, 1d, C)", "recorded")
    ]
    assert [str(sig).split(" -> ")[1] for sig in truth["Groundwater._scale_numpy"]] == [
        "array(float64, 1d, C)"
    ]
