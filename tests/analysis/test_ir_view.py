"""IR views: types, Numba IR, LLVM IR and assembly for one signature, each with a source-line map."""

from __future__ import annotations

import pytest

from pyserver.analysis.engine import AnalysisUnavailable

SOURCE = """
from numba import njit

@njit
def walk(a: "float64[:]", n: int):
    total = 0.0
    for i in range(n):
        total += a[i] * 2.0
    return total

@njit
def broken(x: int):
    return x + (1, 2)

@njit
def unknown(x):
    return x
"""


@pytest.mark.parametrize(
    ("kind", "language", "needle"),
    [
        ("types", "python", "total = 0.0"),
        ("numba_ir", "plaintext", "getitem"),
        ("llvm", "llvm", "define "),
        ("asm", "asm", "walk"),
    ],
)
def test_each_view_maps_source_lines(ws, kind: str, language: str, needle: str) -> None:
    path = ws.write("irv_walk.py", SOURCE)
    view = ws.engine.ir_view(path, None, "walk", 0, kind)
    assert view.language == language and view.function == "walk"
    assert view.signature == "(array(float64, 1d, A), int64) -> float64"
    assert needle in view.text
    lines = view.text.splitlines()
    # The loop body (source line 8) maps to output lines, all inside the text.
    assert view.line_map.get(8), sorted(view.line_map)
    assert all(0 <= n < len(lines) for numbers in view.line_map.values() for n in numbers)
    if kind == "types":
        assert any("total" in lines[n] for n in view.line_map[6])


def test_views_refuse_what_cannot_compile(ws) -> None:
    path = ws.write("irv_refuse.py", SOURCE)
    with pytest.raises(AnalysisUnavailable, match="fix its errors first"):
        ws.engine.ir_view(path, None, "broken", 0, "llvm")
    with pytest.raises(AnalysisUnavailable, match="no argument types"):
        ws.engine.ir_view(path, None, "unknown", 0, "llvm")
    with pytest.raises(AnalysisUnavailable, match="no jitted function"):
        ws.engine.ir_view(path, None, "missing", 0, "llvm")
    with pytest.raises(AnalysisUnavailable, match="out of range"):
        ws.engine.ir_view(path, None, "walk", 3, "llvm")
    with pytest.raises(AnalysisUnavailable, match="unknown IR view"):
        ws.engine.ir_view(path, None, "walk", 0, "bytecode")
    # The engine is still fine afterwards.
    assert ws.engine.analyze(path).status == "ok"


def test_a_cuda_kernel_is_refused_with_its_reason(ws) -> None:
    """The views compile with Numba's CPU target: a CUDA kernel's options are not the CPU's, and its
    IR comes from NVVM. The refusal says so, not the CPU compiler's internal error."""
    path = ws.write(
        "irv_cuda.py",
        """
from numba import cuda

@cuda.jit
def scale(values, factor, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = values[i] * factor

def main():
    import numpy as np
    a = np.arange(16.0)
    out = np.zeros_like(a)
    scale[1, 16](a, 2.0, out)
""",
    )
    with pytest.raises(AnalysisUnavailable, match="'scale' is a CUDA kernel: the IR views compile with"):
        ws.engine.ir_view(path, None, "scale", 0, "llvm")
