"""A lazy `@vectorize` kernel called from jitted code (`cndf2(d1)` inside another kernel, Numba's
Black-Scholes example; `scale(values, 2)` inside an `@njit` function) gets the loop Numba's DUFunc typing
picks or compiles for the call's element types, as a jitted callee gets its caller's types: the same
loops as Numba's run of the module compiled, and no loop for a kernel whose own signatures already cover
the call (a frozen kernel casts to them)."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe

MODULE = """\
import math

import numba
import numpy as np


@numba.vectorize
def cndf(x):
    return 0.5 + 0.5 * math.erf(x / math.sqrt(2.0))


@numba.vectorize
def scale(x, y):
    return x * y


@numba.vectorize(["float64(float64)"])
def frozen(x):
    return x + 1.0


@numba.vectorize("f8(f8,f8)", target="parallel")
def price(spot, strike):
    return cndf(math.log(spot / strike)) * spot


@numba.njit
def prices(d):
    return cndf(d) + cndf(1.5)


@numba.njit
def scaled(values, factor):
    return scale(values, factor), frozen(values)


def run():
    spots = np.linspace(40.0, 44.0, 5)
    return price(spots, 41.0), prices(spots), scaled(np.arange(4, dtype=np.float32), 2)
"""

NUMBA_RAN = """\
import json

import kernels

kernels.run()
print(json.dumps({
    name: sorted([str(a) for a in sig.args] for sig in getattr(kernels, name)._dispatcher.overloads)
    for name in ("cndf", "scale", "frozen")
}))
"""


def test_a_lazy_kernel_gets_the_loops_its_jitted_callers_run(tmp_path: Path) -> None:
    (tmp_path / "kernels.py").write_text(MODULE)
    report = check_json(tmp_path, "kernels.py")
    assert [d for d in report["diagnostics"] if d["severity"] == "error"] == []
    shown = {f["name"]: f["signatures"] for f in report["functions"]}
    numba_compiled = run_probe(tmp_path, NUMBA_RAN)
    assert numba_compiled == {
        "cndf": [["float64"]],
        "scale": [["float32", "int64"]],
        "frozen": [["float64"]],
    }
    for name, loops in numba_compiled.items():
        assert sorted(s["args"] for s in shown[name]) == loops, (name, shown[name])
    assert {s["source"] for s in shown["cndf"]} == {"caller"}
    assert {s["source"] for s in shown["frozen"]} == {"decorator"}  # the call cast to its own loop
    (scale_loop,) = shown["scale"]
    assert scale_loop["return_type"] == "float64" and scale_loop["ok"]
    callers = {(c["function"], c["line"]) for s in shown["cndf"] for c in s.get("callers", [])}
    assert {"price", "prices"} <= {function for function, _ in callers}, callers
