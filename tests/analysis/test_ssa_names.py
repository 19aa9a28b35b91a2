"""The SSA versions the hover data names are exactly those of Numba's own compiled overload.

Numba's front end versions a variable re-assigned on the function's backbone (`n_right.1`) and its SSA
pass then re-versions that one where a loop re-assigns it (`n_right.1.2`); and `locals=` types are copied to every version by mutating the dispatcher's
`locals` dict in place. A function with both, analysed for two signatures, then for callers' types,
then again in the same warm worker after an edit, must report the names and types Numba itself has:
no version of an already-SSA IR, none missing. The truth is computed here by compiling the same code
with Numba.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from pyserver.analysis.model import FileResult

SOURCE = """\
import numba
from numba import njit


@njit(
    ["int64(float64[:], float64)", "int64(float32[:], float32)"],
    locals={"n_right": numba.uint32},
)
def split(values, threshold):
    n_left = 0
    n_right = 0
    for i in range(values.shape[0]):
        if abs(values[i] - threshold) < 1e-8:
            if i % 2 == 0:
                n_left += 1
            else:
                n_right += 1
        elif values[i] > threshold:
            n_right += 1
        else:
            n_left += 1
    if n_left == 0 or n_right == 0:
        n_left = 0
        n_right = 0
        for i in range(values.shape[0]):
            if i % 2 == 0:
                n_left += 1
            else:
                n_right += 1
    counts = n_left * 1000 + n_right
    # Re-assigned on the function's backbone: Numba's front end versions these (n_left.1) before SSA,
    # and SSA then re-versions them inside the loop (n_left.1.2).
    n_left = 0
    n_right = 0
    for i in range(values.shape[0]):
        if values[i] > threshold:
            n_left += 1
        else:
            n_right += 1
    return counts + n_left - n_right


@njit
def count(values, threshold):
    total = 0
    for i in range(values.shape[0]):
        if values[i] > threshold:
            total += 1
        elif values[i] < -threshold:
            total -= 1
    return total


@njit
def caller64(values: numba.float64[:]):
    return count(values, 0.5) + split(values, 0.5)


@njit
def caller32(values: numba.float32[::1]):
    return count(values, numba.float32(0.5))
"""


def _numba_truth(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    """(function, signature text) -> {SSA name: type} from the overloads Numba compiles for this file."""
    spec = importlib.util.spec_from_file_location(f"ssa_truth_{abs(hash(path))}", path)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)  # compiles split's declared signatures
        from numba import float32, float64

        module.caller64.compile((float64[:],))  # and count for the types the callers pass
        module.caller32.compile((float32[::1],))
        truth: dict[tuple[str, str], dict[str, str]] = {}
        for name in ("split", "count", "caller64", "caller32"):
            for args, overload in getattr(module, name).overloads.items():
                typemap: dict[str, Any] = overload.type_annotation.typemap
                text = "(" + ", ".join(str(a) for a in args) + ")"
                truth[(name, text)] = {
                    ssa: str(ty)
                    for ssa, ty in typemap.items()
                    if not ssa.startswith("$") and not ssa.startswith("arg.")
                }
        return truth
    finally:
        sys.modules.pop(spec.name, None)


def _lens_names(result: FileResult) -> dict[tuple[str, str], dict[str, str]]:
    return {
        (function.name, "(" + ", ".join(signature.args) + ")"): {
            v.ssa_name: v.literal or v.type for v in signature.variables
        }
        for function in result.functions
        for signature in function.signatures
    }


def _assert_same_as_numba(result: FileResult, truth: dict[tuple[str, str], dict[str, str]]) -> None:
    assert [d for d in result.diagnostics if d.severity == "error"] == []
    lens = _lens_names(result)
    assert set(lens) == set(truth), "the signatures analysed are the ones Numba compiles"
    for key, numba_variables in truth.items():
        assert sorted(lens[key]) == sorted(numba_variables), key
        assert lens[key] == numba_variables, key


def test_reported_ssa_versions_are_numbas_own(ws) -> None:
    path = ws.write("ssa_versions.py", SOURCE)
    truth = _numba_truth(path)
    # The case the check is about is there: Numba's own re-versioned names.
    split_names = truth[("split", "(array(float64, 1d, A), float64)")]
    assert {"n_right.1.1", "n_right.1.2", "n_left.1.2"} <= set(split_names)
    assert split_names["n_right.1.2"] == "uint32"
    assert ("count", "(array(float32, 1d, C), float32)") in truth

    first = ws.analyze("ssa_versions.py")
    _assert_same_as_numba(first, truth)
    sources = {
        f.name: [s.source for s in f.signatures] for f in first.functions if f.name in ("split", "count")
    }
    assert sources == {"split": ["decorator", "decorator"], "count": ["caller", "caller"]}

    # The same warm worker, the same file again: reused, and still Numba's names.
    _assert_same_as_numba(ws.analyze("ssa_versions.py"), truth)

    # An edit inside split and count: both re-inferred in the warm worker (a reloaded module).
    edited = SOURCE.replace("    counts = ", "    # edited\n    counts = ").replace(
        "    total = 0\n", "    total = 0  # edited\n"
    )
    assert edited.count("# edited") == 2
    again = ws.analyze("ssa_versions.py", edited)
    assert {"split", "count"} <= set(again.inferred), (again.inferred, again.reused)
    _assert_same_as_numba(again, truth)  # names and types do not depend on lines
