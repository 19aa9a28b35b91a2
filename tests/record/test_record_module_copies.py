"""A library that builds a Numba copy of itself (fluids' `fluids.numba`): it runs each module's code again
in a new module object, swaps globals (`cbrt` becomes `np.cbrt`, a plain helper its jitted copy) and jits
every function. Numba compiled those copies, not the functions of the module a user opens, which are plain
Python. `record` marks such compiles; `check` of the module then shows the types Numba gave (the recorded
typemaps), and reports no error that typing them with the module's own globals would give (`cbrt` is a
Python function there, and so is the helper)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from record_helpers import pyserver

FILES = {
    "formulas.py": """
import math


def cbrt(x):
    return math.copysign(abs(x) ** (1.0 / 3.0), x)


def laminar(Re):
    return 64.0 / Re


def moody(Re, eD):
    if Re < 2000.0:
        return laminar(Re)
    return 4.0 * (1.375e-3 * (1.0 + cbrt(2e4 * eD + 1e6 / Re)))
""",
    "fast.py": """
import importlib.util
import types

import numba
import numpy as np

import formulas


def numba_copy(module):
    spec = importlib.util.find_spec(module.__name__)
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    copy.cbrt = np.cbrt
    for name in ("laminar", "moody"):
        setattr(copy, name, numba.njit(getattr(copy, name)))
    return copy


formulas_numba = numba_copy(formulas)
""",
    "prog.py": """
import json
import sys

from fast import formulas_numba

formulas_numba.moody(1e5, 1e-4)
formulas_numba.moody(1e3, 1e-4)
dispatcher = formulas_numba.moody
json.dump(
    [
        [[str(a) for a in sig], str(dispatcher.overloads[sig].signature.return_type)]
        for sig in dispatcher.signatures
    ],
    open(sys.argv[1], "w"),
)
""",
}


def test_a_module_copy_compiled_by_numba_shows_its_recorded_types(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    truth_file = tmp_path / "truth.json"
    proc = pyserver(tmp_path, "record", "--", sys.executable, "prog.py", str(truth_file))
    assert proc.returncode == 0, proc.stderr
    stored = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())
    entries = stored["functions"]["formulas.py::moody"]
    assert entries and all(e.get("module_copy") is True for e in entries)

    checked = pyserver(tmp_path, "check", "formulas.py", "--format", "json", "--variables")
    result = json.loads(checked.stdout)
    assert [d for d in result["diagnostics"] if d["severity"] == "error"] == [], result["diagnostics"]
    (moody,) = [f for f in result["functions"] if f["name"] == "moody"]
    truth = json.loads(truth_file.read_text())
    shown = [[s["args"], s["return_type"]] for s in moody["signatures"]]
    assert shown == truth
    assert {s["source"] for s in moody["signatures"]} == {"recorded"}
    variables = {v["name"]: v["type"] for v in moody["signatures"][0]["variables"]}
    assert variables["Re"] == "float64" and variables["eD"] == "float64"
