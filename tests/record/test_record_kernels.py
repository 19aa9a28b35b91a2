"""`record` stores what quantecon- and numbagg-style code compiles: a jitted function passed as an argument,
an omitted namedtuple default, ufunc and gufunc loops (lazy, eager, dynamic, built at run time), with
compile times; `check` then types those functions from the file. A run that compiles nothing still
writes a valid, empty file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from record_helpers import pyserver

PROGRAM = """
from collections import namedtuple

import numpy as np
from numba import cfunc, float64, guvectorize, njit, vectorize

PivOptions = namedtuple("PivOptions", ["fea_tol", "tol_piv", "max_iter"])


@njit
def f(x):
    return x * x - 2.0


@njit
def brentq(g, a, b, xtol=1e-12):
    for _ in range(100):
        m = 0.5 * (a + b)
        if g(a) * g(m) <= 0:
            b = m
        else:
            a = m
        if b - a < xtol:
            break
    return 0.5 * (a + b)


@njit
def pivot(t, options=PivOptions(1e-7, 1e-7, 10)):
    return t.sum() * options.fea_tol


@njit
def minimize(g, x0, bounds=np.array([[-1.0, 1.0]])):
    return g(x0[0]) + bounds[0, 0]


@cfunc("float64(float64)")
def c_square(x):
    return x * x


@njit
def apply_twice(h, x):
    return h(h(x))


@vectorize
def lazy_add(a, b):
    return a + b


@vectorize([float64(float64, float64)])
def eager_mul(a, b):
    return a * b


@guvectorize("(n)->()")
def dyn_sum(x, out):
    out[0] = 0
    for v in x:
        out[0] += v


def plain_norm(x, out):
    out[0] = np.sqrt((x * x).sum())


class Builder:
    def __init__(self, func):
        self.kernel = guvectorize(["void(float64[:], float64[:])"], "(n)->()")(func)


if __name__ == "__main__":
    print(brentq(f, 0.0, 2.0))
    print(pivot(np.ones(3)))
    print(minimize(f, np.array([1.0])))
    print(apply_twice(c_square, 3.0))
    print(lazy_add(np.ones(3), np.ones(3)))
    print(eager_mul(np.ones(2), np.ones(2)))
    res = np.zeros(2)
    dyn_sum(np.arange(6.0).reshape(2, 3), res)
    print(Builder(plain_norm).kernel(np.ones((2, 2))))
"""


def by_function(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {key.split("::")[1]: entries for key, entries in data["functions"].items()}


def test_functions_as_arguments_namedtuple_defaults_and_kernels_are_recorded(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(PROGRAM)
    proc = pyserver(tmp_path, "record", "--", sys.executable, "prog.py")
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())
    assert data["notes"] == []  # nothing skipped
    functions = by_function(data)
    [brentq] = functions["brentq"]
    assert brentq["args"] == ["dispatcher(f)", "float64", "float64", "omitted(default=1e-12)"]
    assert brentq["types"][0] == {
        "kind": "dispatcher",
        "module": "__main__",
        "qualname": "f",
        "path": "prog.py",
    }
    [pivot] = functions["pivot"]
    assert pivot["args"][1] == "omitted(default=PivOptions(fea_tol=1e-07, tol_piv=1e-07, max_iter=10))"
    [apply_twice] = functions["apply_twice"]  # a @cfunc passed in: a first-class function type
    assert apply_twice["args"] == ["FunctionType[float64(float64)]", "float64"]
    [minimize] = functions["minimize"]  # an array default: Numba tells it apart by identity
    assert minimize["types"][2] == {
        "kind": "omitted_default",
        "function": {"module": "__main__", "qualname": "minimize", "path": "prog.py"},
        "parameter": "bounds",
    }
    assert [(e["args"], e["kernel"], e.get("returns")) for e in functions["lazy_add"]] == [
        (["float64", "float64"], "vectorize", "float64")
    ]
    assert [(e["args"], e["kernel"]) for e in functions["eager_mul"]] == [
        (["float64", "float64"], "vectorize")
    ]
    for name in ("dyn_sum", "plain_norm"):  # a dynamic gufunc, and one built at run time by a class
        assert [(e["args"], e["kernel"], e["layout"]) for e in functions[name]] == [
            (["array(float64, 1d, A)", "array(float64, 1d, A)"], "guvectorize", "(n)->()")
        ]
    for entries in functions.values():
        for entry in entries:
            assert entry["ok"] and 0 < entry["seconds"] < 60 and entry["at"] > 1.7e9

    # The analysis types them from the file: the jitted function argument, the namedtuple default.
    checked = pyserver(tmp_path, "check", "prog.py", "--format", "json")
    assert checked.returncode == 0, checked.stderr
    payload = json.loads(checked.stdout)
    signatures = {f["name"]: f["signatures"] for f in payload["functions"]}
    assert [(s["source"], s["return_type"]) for s in signatures["brentq"]] == [("recorded", "float64")]
    assert [(s["source"], s["return_type"]) for s in signatures["pivot"]] == [("recorded", "float64")]
    assert [(s["source"], s["return_type"]) for s in signatures["minimize"]] == [("recorded", "float64")]
    assert [(s["source"], s["return_type"]) for s in signatures["apply_twice"]] == [("recorded", "float64")]
    assert [s["args"] for s in signatures["dyn_sum"]] == [["array(float64, 1d, A)", "array(float64, 1d, A)"]]
    # A gufunc only the run built (Builder(plain_norm) runs under __main__): found from the recording, placed
    # at its def and typed per loop.
    kinds = {f["name"]: f["kind"] for f in payload["functions"]}
    assert kinds["plain_norm"] == "guvectorize"
    assert [(s["args"], s["source"]) for s in signatures["plain_norm"]] == [
        (["array(float64, 1d, A)", "array(float64, 1d, A)"], "recorded")
    ]
    assert not [d for d in payload["diagnostics"] if d["function"] in ("brentq", "pivot", "minimize")]


def test_a_run_that_compiles_nothing_writes_an_empty_file(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text("print('no numba here')\n")
    (tmp_path / "prog.py").write_text(PROGRAM)
    target = tmp_path / "empty.json"
    assert (
        pyserver(tmp_path, "record", "--signatures", str(target), "--", sys.executable, "plain.py").returncode
        == 0
    )
    assert json.loads(target.read_text()) == {"functions": {}, "notes": [], "version": 1}
    checked = pyserver(tmp_path, "check", "--signatures", str(target), "prog.py")
    assert checked.returncode == 0, checked.stderr


def test_a_scripts_function_passed_to_a_library_types_the_library(tmp_path: Path) -> None:
    (tmp_path / "lib.py").write_text(
        "from numba import njit\n\n\n@njit\ndef solve(g, x):\n    return g(x) + 1.0\n"
    )
    (tmp_path / "run.py").write_text(
        "from numba import njit\n\nfrom lib import solve\n\n\n@njit\ndef square(x):\n    return x * x\n\n\n"
        "print(solve(square, 2.0))\n"
    )
    assert pyserver(tmp_path, "record", "--", sys.executable, "run.py").returncode == 0
    data = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())
    [solve] = data["functions"]["lib.py::solve"]
    assert solve["types"][0] == {
        "kind": "dispatcher",
        "module": "__main__",
        "qualname": "square",
        "path": "run.py",
    }
    # Checking lib.py alone: run.py (a script nothing imports) is imported for its definitions to find `square`.
    checked = pyserver(tmp_path, "check", "lib.py", "--format", "json")
    assert checked.returncode == 0, checked.stderr
    [function] = json.loads(checked.stdout)["functions"]
    assert [(s["args"], s["source"], s["return_type"]) for s in function["signatures"]] == [
        (["dispatcher(square)", "float64"], "recorded", "float64")
    ]


def test_a_loop_built_at_run_time_returns_its_signatures_type(tmp_path: Path) -> None:
    """`vectorize(["f4(f4, f4)", ...])(f)` inside a function (Numba's own vectorize examples): after record,
    each loop returns the type its signature writes (Numba casts the body's float64 to float32), not the
    body's type."""
    (tmp_path / "poly.py").write_text(
        "import math\n\nimport numpy as np\nfrom numba import vectorize\n\n\n"
        "def discriminant(a, b, c):\n    return math.sqrt(b ** 2 - 4 * a * c)\n\n\n"
        "def main():\n"
        '    kernel = vectorize(["f4(f4, f4, f4)", "f8(f8, f8, f8)"])(discriminant)\n'
        "    a = np.ones(4, dtype=np.float32)\n"
        "    print(kernel(a, a + 10, a).dtype, kernel(a.astype(np.float64), a + 10, a).dtype)\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )
    proc = pyserver(tmp_path, "record", "--", sys.executable, "poly.py")
    assert proc.returncode == 0, proc.stderr
    assert "float32 float64" in proc.stdout  # what Numba's loops return
    checked = pyserver(tmp_path, "check", "poly.py", "--format", "json")
    assert checked.returncode == 0, checked.stderr
    [function] = json.loads(checked.stdout)["functions"]
    assert [(s["args"], s["return_type"]) for s in function["signatures"]] == [
        (["float32", "float32", "float32"], "float32"),
        (["float64", "float64", "float64"], "float64"),
    ]
