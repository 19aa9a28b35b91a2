"""An object-mode function (`@jit(forceobj=True)`) is compiled by Numba's dispatcher per argument types, as
a nopython one is, and runs on Python objects throughout: its signatures are the types it was called with
(an instance of a plain class is a `pyobject`), its return a `pyobject`, and it has no typed variables.
`check` shows those signatures, from a recorded run and from the Python code that calls it, as Numba's
dispatcher lists them; a function no source gives types keeps its one generic signature."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from record_helpers import pyserver

MODULE = """
import numba
import numpy as np


class Neighbours:
    def __init__(self, k):
        self.k = k

    @numba.jit(forceobj=True)
    def nearest(self, points, order, k):
        out = []
        for row in points[order[:k]]:
            out.append(row.sum() * self.k)
        return np.array(out)


@numba.jit(forceobj=True)
def describe(values, label):
    return {label: list(values)}


@numba.jit(forceobj=True)
def never_called(x):
    return str(x)


def summary():
    return describe(np.arange(4.0), "four")
"""

PROGRAM = """
import json
import sys

import numpy as np

from objmode import Neighbours, describe

Neighbours(2).nearest(np.ones((5, 3)), np.arange(5), 3)
describe(np.arange(4.0), "four")
json.dump(
    {
        name: [[str(a) for a in sig] for sig in dispatcher.signatures]
        for name, dispatcher in (("Neighbours.nearest", Neighbours.nearest), ("describe", describe))
    },
    open(sys.argv[1], "w"),
)
"""


def _signatures(result: dict) -> dict[str, list[tuple[list[str], str | None, str]]]:
    return {
        f["name"]: [(s["args"], s.get("return_type"), s["mode"]) for s in f["signatures"]]
        for f in result["functions"]
    }


def test_object_mode_signatures_are_the_types_it_is_called_with(tmp_path: Path) -> None:
    (tmp_path / "objmode.py").write_text(MODULE)
    (tmp_path / "prog.py").write_text(PROGRAM)
    first = json.loads(pyserver(tmp_path, "check", "objmode.py", "--format", "json", "--variables").stdout)
    shown = _signatures(first)
    # the Python caller's types at first sight; the method, called from no code here, its generic one
    assert shown["describe"] == [(["array(float64, 1d, C)", "unicode_type"], "pyobject", "object")]
    assert shown["Neighbours.nearest"] == [(["pyobject"] * 4, None, "object")]
    assert shown["never_called"] == [(["pyobject"], None, "object")]

    truth_file = tmp_path / "truth.json"
    recorded = pyserver(tmp_path, "record", "--", sys.executable, "prog.py", str(truth_file))
    assert recorded.returncode == 0, recorded.stderr
    truth = json.loads(truth_file.read_text())
    after = json.loads(pyserver(tmp_path, "check", "objmode.py", "--format", "json", "--variables").stdout)
    shown = _signatures(after)
    for name in ("Neighbours.nearest", "describe"):
        assert [args for args, _, _ in shown[name]] == truth[name], (name, shown[name])
        assert all(returned == "pyobject" and mode == "object" for _, returned, mode in shown[name])
    functions = {f["name"]: f for f in after["functions"]}
    assert all(s["variables"] == [] for s in functions["Neighbours.nearest"]["signatures"])
    assert [d["code"] for d in after["diagnostics"] if d["severity"] == "error"] == []
