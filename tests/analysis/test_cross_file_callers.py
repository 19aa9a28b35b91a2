"""Argument types from a jitted caller in another workspace module (across files).

When b.py is analysed, the types its checked jitted functions pass to a jitted function imported from
kernels.py are kept by the warm worker; analysing kernels.py then checks that function with them,
source "caller", with the caller's location. Everything runs through the real engine and Numba.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from analysis_helpers import by_code, function_named

from pyserver.analysis.model import CallerSite

ROOT = Path(__file__).resolve().parents[2]

KERNELS = """\
from numba import njit


@njit
def scale(x, factor):
    return x * factor


@njit
def walk(values, steps):
    total = 0.0
    for i in range(steps):
        total += scale(values[i % values.shape[0]], 2)
    return total
"""

CALLER = """\
import numpy as np
from numba import njit

from {module} import walk


@njit
def run(values: "float64[::1]", steps: int):
    return walk(values, steps)
"""


def test_a_caller_in_another_module_gives_the_callee_its_types(ws) -> None:
    kernels = ws.write("xf_kernels.py", KERNELS)
    caller = ws.write("xf_caller.py", CALLER.format(module="xf_kernels"))

    alone = ws.analyze("xf_kernels.py")
    assert [d.function for d in by_code(alone, "no-signature")] == ["scale", "walk"]

    from_caller = ws.analyze("xf_caller.py")
    assert from_caller.diagnostics == []
    (run_signature,) = function_named(from_caller, "run").signatures
    assert run_signature.ok and run_signature.source == "annotation"
    # kernels.py was analysed before without these types: it should be analysed again.
    assert from_caller.callers_changed == [os.path.realpath(kernels)]

    typed = ws.analyze("xf_kernels.py")
    assert typed.diagnostics == []
    assert typed.callers_changed == []
    (walk,) = function_named(typed, "walk").signatures
    assert (walk.source, walk.args, walk.ok, walk.return_type) == (
        "caller",
        ["array(float64, 1d, C)", "int64"],
        True,
        "float64",
    )
    assert walk.callers == [CallerSite(str(caller), "run", 9)]
    # The chain goes on inside kernels.py: walk's call of scale (same file) types scale too.
    (scale,) = function_named(typed, "scale").signatures
    assert (scale.source, scale.args, scale.ok) == ("caller", ["float64", "Literal[int](2)"], True)
    assert scale.callers == [CallerSite(str(kernels), "walk", 13)]
    assert {v.ssa_name: v.type for v in walk.variables}["total.1"] == "float64"

    # Analysing kernels.py again changes nothing for its callers' file.
    assert ws.analyze("xf_kernels.py").callers_changed == []


def test_a_failing_cross_module_call_shows_in_the_callee_with_a_link_to_the_caller(ws) -> None:
    ws.write("xf_bad_kernels.py", KERNELS)
    caller_source = CALLER.format(module="xf_bad_kernels").replace(
        "return walk(values, steps)", 'return walk(values, "three")'
    )
    caller = ws.write("xf_bad_caller.py", caller_source)

    from_caller = ws.analyze("xf_bad_caller.py")
    (at_call,) = by_code(from_caller, "typing-error")
    assert at_call.function == "run" and at_call.range.start.line == 8

    callee = ws.analyze("xf_bad_kernels.py")
    (in_callee,) = [d for d in callee.diagnostics if d.severity == "error"]
    assert (in_callee.code, in_callee.function) == ("unsupported", "walk")  # range() of a string
    assert in_callee.range.start.line == 11  # `for i in range(steps)` with steps a string
    assert [(r.path, r.range.start.line, r.message) for r in in_callee.relatedInformation] == [
        (str(caller), 8, "called from 'run' with (array(float64, 1d, C), Literal[str](three))")
    ]
    # The call site itself: `walk(...)` on the caller's line.
    related = in_callee.relatedInformation[0].range
    line = caller_source.splitlines()[8]
    assert line[related.start.character : related.end.character].startswith("walk(")


def test_caller_types_go_when_the_caller_or_the_callee_changes(ws) -> None:
    kernels = ws.write("xf_stale_kernels.py", KERNELS)
    ws.write("xf_stale_caller.py", CALLER.format(module="xf_stale_kernels"))
    ws.analyze("xf_stale_caller.py")
    assert function_named(ws.analyze("xf_stale_kernels.py"), "walk").signatures[0].source == "caller"

    # The callee's parameters changed: the caller's types may not fit any more, so they are not used.
    changed_def = KERNELS.replace("def walk(values, steps):", "def walk(values, steps, start=0):")
    changed = ws.analyze("xf_stale_kernels.py", changed_def)
    assert function_named(changed, "walk").signatures == []
    assert "walk" in [d.function for d in by_code(changed, "no-signature")]
    assert function_named(ws.analyze("xf_stale_kernels.py", KERNELS), "walk").signatures[0].source == "caller"

    # The caller no longer calls walk: its types go, and the callee's file is said to be stale.
    no_call = CALLER.format(module="xf_stale_kernels").replace("return walk(values, steps)", "return 0.0")
    without = ws.analyze("xf_stale_caller.py", no_call)
    assert without.callers_changed == [os.path.realpath(kernels)]
    assert function_named(ws.analyze("xf_stale_kernels.py"), "walk").signatures == []


def test_check_gives_an_earlier_file_the_types_of_a_later_caller(tmp_path: Path) -> None:
    (tmp_path / "a_kernels.py").write_text(KERNELS, encoding="utf-8")
    (tmp_path / "b_main.py").write_text(CALLER.format(module="a_kernels"), encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", "."],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    payload = json.loads(completed.stdout)
    assert payload["diagnostics"] == []
    signatures = {f["name"]: f["signatures"] for f in payload["functions"]}
    assert [(s["source"], s["args"], s["ok"], s["callers"]) for s in signatures["walk"]] == [
        (
            "caller",
            ["array(float64, 1d, C)", "int64"],
            True,
            [{"path": "b_main.py", "function": "run", "line": 9}],
        )
    ]
    assert [(s["source"], s["ok"]) for s in signatures["scale"]] == [("caller", True)]
