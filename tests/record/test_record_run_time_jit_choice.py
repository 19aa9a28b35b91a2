"""A module whose jit decorator the program picks at run time (`jcompile = jit if os.getenv(...) else
plain`, then `importlib.reload`, as solar-position code does to make its NumPy functions fast on demand).
Analysis loads the module as it reads without the switch, so its functions are plain there. After `record`,
the functions Numba compiled are typed from their recorded compiles, and a jitted caller of another one
types against a dispatcher, as it did in the run: no false "Untyped global name" error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from record_helpers import pyserver

MODULE = """
import os


def nocompile(*args, **kwargs):
    return lambda func: func


if os.getenv("SOLAR_USE_NUMBA", "0") != "0":
    from numba import jit

    jcompile = jit
else:
    jcompile = nocompile


@jcompile("float64(float64)", nopython=True)
def helper(x):
    return x * 2.0


@jcompile("float64(float64)", nopython=True)
def caller(x):
    return helper(x) + 1.0
"""

PROGRAM = """
import json
import os
import sys
from importlib import reload

import solar

os.environ["SOLAR_USE_NUMBA"] = "1"
solar = reload(solar)
value = solar.caller(3.0)
json.dump(
    {"value": value, "caller": [str(s) for s in solar.caller.nopython_signatures],
     "helper": [str(s) for s in solar.helper.nopython_signatures]},
    open(sys.argv[1], "w"),
)
"""


def test_functions_jitted_by_a_run_time_choice_are_typed_without_false_errors(tmp_path: Path) -> None:
    (tmp_path / "solar.py").write_text(MODULE)
    (tmp_path / "prog.py").write_text(PROGRAM)
    truth_file = tmp_path / "truth.json"
    recorded = pyserver(tmp_path, "record", "--", sys.executable, "prog.py", str(truth_file))
    assert recorded.returncode == 0, recorded.stderr
    truth = json.loads(truth_file.read_text())
    assert truth == {"value": 7.0, "caller": ["(float64,) -> float64"], "helper": ["(float64,) -> float64"]}
    after = json.loads(pyserver(tmp_path, "check", "solar.py", "--format", "json").stdout)
    assert after["diagnostics"] == []
    shown = {
        f["name"]: [(s["args"], s["return_type"], s["ok"]) for s in f["signatures"]]
        for f in after["functions"]
    }
    assert shown == {"helper": [(["float64"], "float64", True)], "caller": [(["float64"], "float64", True)]}
