"""A package that jits through its own shim (`compat.py`: `from numba import jit` wrapped with the
package's options, imported as `from .compat import jit`), with dispatchers made by calls (`total =
jit(total_python, nopython=True)`): the call makes a jitted function under definitions-only loading, the
dispatcher's calls type it as Numba compiles it, and a call of the plain original, which runs Python and
compiles nothing, types nothing. Twin dispatchers of one function (a parallel and a serial one) take
neither the plain function's calls nor each other's. The no-signature note writes its fix in the
module's own call (its builder, its options)."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe

SHIM = """\
import functools

try:
    from numba import jit

    jit = functools.partial(jit, nopython=True)
except ImportError:
    def jit(function=None, **options):
        return function
"""

KERNELS = """\
import numpy as np

from .compat import jit


def total_python(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i]
    return s


total = jit(total_python, cache=False)


def clip_python(value, bounds):
    return min(max(value, bounds[0]), bounds[1])


clip = jit(clip_python, inline="always")


def use():
    return total(np.ones(5))
"""

TESTS = """\
import numpy as np

import mylib.kernels as k
from mylib.kernels import total_python


def test_total():
    assert k.total_python(np.arange(5)) == 10.0
    assert total_python([1, 2]) == 3.0
    assert k.total(np.ones((3,), dtype=np.float32)) == 3.0
"""

NUMBA_RAN = """\
import json
import sys

sys.path.insert(0, "tests")
import test_kernels
from mylib import kernels

test_kernels.test_total()
kernels.use()
print(json.dumps(sorted([str(a) for a in sig] for sig in kernels.total.signatures)))
"""


def test_a_package_jit_shim_makes_dispatchers_whose_calls_type_the_function(tmp_path: Path) -> None:
    (tmp_path / "mylib").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "mylib" / "__init__.py").write_text("")
    (tmp_path / "mylib" / "compat.py").write_text(SHIM)
    (tmp_path / "mylib" / "kernels.py").write_text(KERNELS)
    (tmp_path / "tests" / "test_kernels.py").write_text(TESTS)
    report = check_json(tmp_path, "mylib/kernels.py")
    assert report["files"][0]["loading"] == "definitions"
    shown = {f["name"]: f["signatures"] for f in report["functions"]}
    compiled = run_probe(tmp_path, NUMBA_RAN)
    # the dispatcher's calls only: `k.total_python(np.arange(5))` and `total_python([1, 2])` compile nothing
    assert compiled == [["array(float32, 1d, C)"], ["array(float64, 1d, C)"]]
    assert sorted(s["args"] for s in shown["total_python"]) == compiled
    assert {s["source"] for s in shown["total_python"]} == {"python-caller"}
    # nothing calls `clip`: the fix is the module's own call with a signature, options kept
    assert shown["clip_python"] == []
    note = next(d for d in report["diagnostics"] if d["code"] == "no-signature")
    assert 'jit("(<type of value>, <type of bounds>)", inline="always")(clip_python)' in note["message"], (
        note["message"]
    )


TWINS = """\
import numpy as np
from numba import njit


def step_py(x):
    return x * 2.0


step_parallel = njit(step_py, parallel=True)
step_serial = njit(step_py)

step_py(np.arange(3))
step_parallel(np.ones(3))
step_serial(np.ones((2, 2)))
"""


def test_twin_dispatchers_take_neither_the_plain_calls_nor_each_others(tmp_path: Path) -> None:
    """`step_py(np.arange(3))` runs Python: before, it typed the function `(array(int64, 1d, C),)`,
    which no dispatcher compiled."""
    (tmp_path / "twins.py").write_text(TWINS)
    report = check_json(tmp_path, "twins.py")
    (function,) = report["functions"]
    assert function["signatures"] == []
    (note,) = [d for d in report["diagnostics"] if d["code"] == "no-signature"]
    assert "Jit calls make 2 dispatchers of it ('step_parallel', 'step_serial')" in note["message"]
    assert "No Python code in the workspace calls" not in note["message"]
    assert 'njit("(<type of x>,)", parallel=True)(step_py)' in note["message"]
