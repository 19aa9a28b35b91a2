"""Recompiles explained from a recorded run: each compile in order with its time, for every compile after
the first the argument whose type made Numba compile again, and for cache=True functions whether the
cache index holds the signature (a hit next time) or why not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pyserver.analysis.worker.infer import recompiles
from pyserver.record import store

ROOT = Path(__file__).resolve().parents[2]
ENV = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}

PROGRAM = """
import numpy as np
from numba import njit


@njit(cache=True)
def scale(a, k):
    return a * k


@njit
def total(a):
    return a.sum()


if __name__ == "__main__":
    scale(np.ones(3), 2.0)
    scale(np.ones(3), 2)
    total(np.ones(4))
    total(np.ones((4, 4))[:, 0])
    total(np.ones(4, dtype=np.float32))
"""


def pyserver(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pyserver", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=ENV,
    )


def checked(cwd: Path) -> dict[str, Any]:
    proc = pyserver(cwd, "check", "prog.py", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return {f["name"]: f for f in json.loads(proc.stdout)["functions"]}


def test_recompiles_and_cache_hits_from_a_recorded_run(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(PROGRAM)
    assert pyserver(tmp_path, "record", "--", sys.executable, "prog.py").returncode == 0
    functions = checked(tmp_path)

    total = functions["total"]
    assert [c["args"] for c in total["compiles"]] == [
        ["array(float64, 1d, C)"],
        ["array(float64, 1d, A)"],
        ["array(float32, 1d, C)"],
    ]  # in the order the run compiled them
    assert all(c["seconds"] > 0 and c["cache"] is None for c in total["compiles"])
    assert [r["because"] for r in total["recompiles"]] == [
        "'a': layout A (any layout, e.g. a strided slice), was C (C-contiguous)",
        "'a': dtype float32, was float64",
    ]
    assert total["recompiles"][0]["changed"] == [
        {
            "index": 0,
            "name": "a",
            "before": "array(float64, 1d, C)",
            "after": "array(float64, 1d, A)",
            "what": "layout A (any layout, e.g. a strided slice), was C (C-contiguous)",
        }
    ]

    scale = functions["scale"]
    assert [r["because"] for r in scale["recompiles"]] == ["'k': int64, was float64"]
    assert [c["cache"]["state"] for c in scale["compiles"]] == ["hit", "hit"]

    # The source changed: Numba drops the whole index, so the next run compiles both again.
    (tmp_path / "prog.py").write_text(PROGRAM + "\n# edited\n")
    scale = checked(tmp_path)["scale"]
    assert [c["cache"]["state"] for c in scale["compiles"]] == ["miss", "miss"]
    assert "the source file changed" in scale["compiles"][0]["cache"]["reason"]


def test_order_summary_and_older_recordings() -> None:
    data = store.empty()
    for args, at, seconds in ((["int64", "float64"], 20.0, 0.25), (["int64", "int64"], 10.0, 0.5)):
        store.merge(
            data,
            "m.py::f",
            store.Entry(args, [{"kind": "named", "name": a} for a in args], True, seconds, at),
        )
    store.merge(
        data, "m.py::f", store.Entry(["float32", "int64"], [{"kind": "named", "name": "float32"}, {}], True)
    )
    records = recompiles.compiles_of([data], "m.py::f", ["n", "x"])
    assert [r.args for r in records] == [["int64", "int64"], ["int64", "float64"], ["float32", "int64"]]
    assert records[1].because == "'x': float64, was int64"
    assert records[2].because == "'n': float32, was int64"  # against the closest earlier compile
    assert recompiles.summary(records) == "3 compiles · 0.75 s (2 timed)"
    assert recompiles.summary(records[:1]) == "1 compile · 0.50 s"


def test_a_cached_function_whose_callee_in_another_module_changed_is_stale(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text(
        "from numba import njit\n\n\n@njit\ndef helper(x):\n    return x + 1\n"
    )
    (tmp_path / "prog.py").write_text(
        "from numba import njit\n\nfrom helpers import helper\n\n\n@njit(cache=True)\ndef uses(x):\n"
        "    return helper(x) * 2\n\n\nif __name__ == '__main__':\n    uses(1.5)\n"
    )
    assert pyserver(tmp_path, "record", "--", sys.executable, "prog.py").returncode == 0
    [compile_] = checked(tmp_path)["uses"]["compiles"]
    assert compile_["cache"]["state"] == "hit"

    # Numba's cache does not look at other modules: the next run would load the old helper, inlined.
    helpers = tmp_path / "helpers.py"
    helpers.write_text(helpers.read_text().replace("x + 1", "x + 2"))
    later = max(p.stat().st_mtime for p in (tmp_path / "__pycache__").glob("*.nbi")) + 10
    os.utime(helpers, (later, later))
    [compile_] = checked(tmp_path)["uses"]["compiles"]
    assert compile_["cache"]["state"] == "stale"
    assert "helpers.py (through 'helper') changed after it was written" in compile_["cache"]["reason"]
