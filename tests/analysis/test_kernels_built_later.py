"""Kernels a module builds only when its code runs (`vectorize(["f4(f4, f4)", "f8(f8, f8)"],
target=target)(f)` inside `main()`, as Numba's own vectorize examples do; `njit("f8(f8)")(g)` in a
function) are typed at first sight with their literal signatures, compiling nothing: the loader makes them
again through its hooked decorators. Each loop's types are Numba's own, from running the module; a build
with a signature that is not a literal, or of a function the module does not define, is left alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from analysis_helpers import analysed_without_lowering, run_probe

SOURCE = """\
import math
import sys

import numba
import numpy as np
from numba import float64, njit, vectorize


def discriminant(a, b, c):
    return math.sqrt(b ** 2 - 4 * a * c)


def scale(x):
    return x * 2


def half(x):
    return x / 2


def gufunc_sum(x, out):
    out[0] = x.sum()


def not_literal(x):
    return x + 1


def for_the_gpu(x):
    return x + 1


def main(target="cpu"):
    kernel = vectorize(["f4(f4, f4, f4)", "f8(f8, f8, f8)"], target=target)(discriminant)
    fast_scale = numba.njit("int64(int64)")(scale)
    fast_half = njit(["float32(float32)"], cache=True)(half)
    summed = numba.guvectorize(["void(float64[:], float64[:])"], "(n)->()")(gufunc_sum)
    other = vectorize([float64(float64)])(not_literal)
    if target == "cuda":
        vectorize(["f8(f8)"], target="cuda")(for_the_gpu)
    a = np.ones(3, dtype=np.float32)
    kernel(a, a + 10, a), fast_scale(3), fast_half(np.float32(1)), summed(np.ones(3), np.zeros(1)), other(a)
    return {"discriminant": kernel, "scale": fast_scale, "half": fast_half}


if __name__ == "__main__":
    main()
"""


def _analysed(tmp_path: Path, monkeypatch: Any) -> tuple[dict[str, list[tuple[list[str], str]]], list[str]]:
    _analyzer, result, lowered = analysed_without_lowering(tmp_path, monkeypatch, "built_later.py", SOURCE)
    shown = {f.name: [(list(s.args), s.return_type) for s in f.signatures] for f in result.functions}
    return shown, lowered


def _numba_loops(tmp_path: Path) -> dict[str, list[tuple[list[str], str]]]:
    """What Numba compiled for each kernel, running main() of the module."""
    probe = (
        "import json, built_later as m\n"
        "def loops(kernel):\n"
        "    signatures = getattr(kernel, 'nopython_signatures', None)\n"
        "    if signatures is None:  # a ufunc: its dispatcher's loops\n"
        "        signatures = list(kernel._dispatcher.overloads)\n"
        "    return [[[str(a) for a in s.args], str(s.return_type)] for s in signatures]\n"
        "print(json.dumps({name: loops(kernel) for name, kernel in m.main().items()}))\n"
    )
    found: dict[str, list[list[Any]]] = run_probe(tmp_path, probe)
    return {name: [(args, ret) for args, ret in loops] for name, loops in found.items()}


def test_kernels_built_in_a_function_are_typed_at_first_sight(tmp_path: Path, monkeypatch: Any) -> None:
    shown, lowered = _analysed(tmp_path, monkeypatch)
    assert lowered == [], f"compiled during the analysis: {lowered}"
    numba = _numba_loops(tmp_path)
    for name in ("discriminant", "scale", "half"):
        assert shown[name] == numba[name], name
    assert shown["discriminant"] == [
        (["float32", "float32", "float32"], "float32"),
        (["float64", "float64", "float64"], "float64"),
    ]
    assert shown["gufunc_sum"] == [(["array(float64, 1d, A)", "array(float64, 1d, A)"], "none")]
    assert "not_literal" not in shown  # its signature is an expression: left to record
    assert "for_the_gpu" not in shown  # a CUDA ufunc: not typed as a CPU one
