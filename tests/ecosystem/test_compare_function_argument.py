"""A jitted function passed as an argument (a `lambda` or a `def` of the calling script, as quantecon's
`brentq(f, a, b)` and `nelder_mead(fun, x0)` take): `record` keeps the compile's types, `check` shows them
for the argument types Numba compiled (`dispatcher(<lambda>)`, `dispatcher(f)`), and the ecosystem
comparison counts that signature typed, with no wrong type: Numba's `type(CPUDispatcher(<function
<lambda> at 0x...>))` names the same function as check's `dispatcher(<lambda>)`. A real difference in a
variable's type is still one."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ENV = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}

SOLVERS = """\
from numba import njit


@njit
def halve(f, lo, hi, args=(), tol=1e-9, max_steps=200):
    steps = 0
    while hi - lo > tol and steps < max_steps:
        mid = 0.5 * (lo + hi)
        if f(lo, *args) * f(mid, *args) <= 0.0:
            hi = mid
        else:
            lo = mid
        steps += 1
    return 0.5 * (lo + hi), steps
"""

WORKLOAD = """\
import json
import sys

from numba import njit

from solvers.halving import halve


def cubic(x):
    return x**3 - 2.0 * x - 5.0


print(halve(njit(lambda x: x * x - 2.0), 0.0, 2.0))
print(halve(njit(cubic), 1.0, 3.0))
if len(sys.argv) > 1:  # Numba's own compiles, for the comparison
    truth = []
    for sig in halve.signatures:
        compiled = halve.overloads[sig]
        truth.append(
            {
                "args": [str(a) for a in sig],
                "return_type": str(compiled.signature.return_type),
                "objectmode": False,
                "typemap": {str(k): str(v) for k, v in compiled.type_annotation.typemap.items()},
            }
        )
    with open(sys.argv[1], "w") as out:
        json.dump(truth, out)
"""


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, env=ENV)


def test_a_jitted_function_argument_is_typed_after_record_and_compares_equal(
    tmp_path: Path, ecosystem_compare: Any
) -> None:
    (tmp_path / "solvers").mkdir()
    (tmp_path / "solvers" / "__init__.py").write_text("")
    (tmp_path / "solvers" / "halving.py").write_text(SOLVERS)
    (tmp_path / "use_solvers.py").write_text(WORKLOAD)
    truth_run = _run(tmp_path, sys.executable, "use_solvers.py", str(tmp_path / "truth.json"))
    assert truth_run.returncode == 0, truth_run.stderr
    truth_signatures = json.loads((tmp_path / "truth.json").read_text())
    assert sorted(s["args"][0].split(" at ")[0] for s in truth_signatures) == [
        "type(CPUDispatcher(<function <lambda>",
        "type(CPUDispatcher(<function cubic",
    ]
    recorded = _run(
        tmp_path, sys.executable, "-m", "pyserver", "record", "--", sys.executable, "use_solvers.py"
    )
    assert recorded.returncode == 0, recorded.stderr
    checked = _run(
        tmp_path, sys.executable, "-m", "pyserver", "check", "solvers", "--format", "json", "--variables"
    )
    ours = json.loads(checked.stdout)
    assert [d["message"] for d in ours["diagnostics"] if d["severity"] == "error"] == []
    (halve,) = [f for f in ours["functions"] if f["name"] == "halve"]
    shown = sorted(s["args"][0] for s in halve["signatures"] if s["variables"])
    assert shown == ["dispatcher(<lambda>)", "dispatcher(cubic)"]

    compare = ecosystem_compare
    for compiled in ([s] for s in truth_signatures):  # each signature alone is typed
        truth = [{"path": "solvers/halving.py", "qualname": "halve", "line": 4, "signatures": compiled}]
        figures = compare.compare(truth, ours, ours)
        assert (figures.compiled, figures.typed_after, figures.wrong_types) == (1, 1, 0), figures.differences
        assert figures.hover_equal > 0
    truth = [{"path": "solvers/halving.py", "qualname": "halve", "line": 4, "signatures": truth_signatures}]

    # a real difference in the lambda's signature is still a wrong type
    tampered = copy.deepcopy(ours)
    (tampered_halve,) = [f for f in tampered["functions"] if f["name"] == "halve"]
    (lambda_signature,) = [s for s in tampered_halve["signatures"] if s["args"][0] == "dispatcher(<lambda>)"]
    (steps,) = [v for v in lambda_signature["variables"] if v["ssa_name"] == "steps"]
    steps["type"] = steps["numba_type"] = "float64"
    figures = compare.compare(truth, tampered, tampered)
    assert figures.wrong_types == 2, figures.differences  # first sight and after record
