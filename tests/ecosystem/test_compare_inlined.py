"""The ecosystem comparison names a copy of an inlined function's variable by its rank, not by Numba's
process-wide counter: two compiles of the same function in two processes number the copies differently
(`_row_v2_start` in one, `_row_v4_start` in the other), and that is no wrong type. A real difference in
one copy is still one."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CHECK = [sys.executable, "-m", "pyserver", "check", "--format", "json", "--variables"]

SOURCE = """
import numpy as np
from numba import njit


@njit(inline="always")
def _row(a, start):
    k = start
    s = 0.0
    while k < a.shape[0]:
        s += a[k]
        k += 1
    return s


@njit
def other(a):
    return _row(a, 1)


@njit
def outer(a, j):
    x = _row(a, j + 1)
    y = _row(a, 0)
    return x + y
"""

# Numba's own compile of `outer`, after another inlining moved the process's counter on
TRUTH = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import inlined
inlined.other(np.ones(3))
inlined.outer(np.ones(3), 0)
(sig,) = inlined.outer.signatures
typemap = inlined.outer.overloads[sig].type_annotation.typemap
print(json.dumps({"args": [str(a) for a in sig], "return_type": str(inlined.outer.overloads[sig].signature.return_type),
                  "typemap": {str(k): str(v) for k, v in typemap.items()}}))
"""


def test_inlined_copies_compare_by_rank_and_a_real_difference_stays(
    tmp_path: Path, ecosystem_compare: Any
) -> None:
    (tmp_path / "inlined.py").write_text(SOURCE)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    truth_run = subprocess.run(
        [sys.executable, "-c", TRUTH, str(tmp_path)], capture_output=True, text=True, timeout=300, env=env
    )
    assert truth_run.returncode == 0, truth_run.stderr
    truth_signature = {**json.loads(truth_run.stdout), "objectmode": False}
    # ours, with the types for `outer` passed in by a Python caller
    (tmp_path / "inlined.py").write_text(SOURCE + "\n\nouter(np.ones(3), 0)\n")
    checked = subprocess.run(
        [*CHECK, "--root", str(tmp_path), str(tmp_path / "inlined.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    ours = json.loads(checked.stdout)
    ours_outer = next(f for f in ours["functions"] if f["name"] == "outer")
    (signature,) = [s for s in ours_outer["signatures"] if s["args"] == truth_signature["args"]]
    our_starts = {v["ssa_name"]: v.get("numba_type", v["type"]) for v in signature["variables"]}
    our_starts = {k: v for k, v in our_starts.items() if k.endswith("_start")}
    numba_starts = {k: v for k, v in truth_signature["typemap"].items() if k.endswith("_start")}
    assert sorted(our_starts.values()) == sorted(numba_starts.values()) == ["Literal[int](0)", "int64"]
    assert set(our_starts) != set(numba_starts)  # the same copies, numbered apart by the two processes

    compare = ecosystem_compare
    truth = [
        {"path": "inlined.py", "qualname": "outer", "line": 21, "signatures": [truth_signature]},
    ]
    for function in ours["functions"]:
        function["path"] = "inlined.py"
    figures = compare.compare(truth, ours, ours)
    assert figures.wrong_types == 0, figures.differences
    assert figures.hover_equal >= 2 * len(our_starts)  # the copies were compared, in both runs

    # a real difference in one copy is still a wrong type
    tampered = copy.deepcopy(ours)
    outer = next(f for f in tampered["functions"] if f["name"] == "outer")
    (tampered_signature,) = [s for s in outer["signatures"] if s["args"] == truth_signature["args"]]
    for variable in tampered_signature["variables"]:
        if (
            variable["ssa_name"].endswith("_start")
            and variable.get("numba_type", variable["type"]) == "int64"
        ):
            variable["type"] = variable["numba_type"] = "float64"
    figures = compare.compare(truth, tampered, tampered)
    assert figures.wrong_types == 2, figures.differences  # first sight and after record
