"""The ways a kernel is made: `cuda.jit(f)` called on a plain function, launched under another name."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pyserver.analysis.engine import AnalysisEngine


def test_cuda_jit_called_on_a_function(cuda_engine: AnalysisEngine, cuda_workspace: Path) -> None:
    path = cuda_workspace / "jit_call.py"
    path.write_text(
        textwrap.dedent(
            """
            import numpy as np
            from numba import cuda


            def double(a, out):
                i = cuda.grid(1)
                if i < a.size:
                    out[i] = a[i] * 2


            double_kernel = cuda.jit(double)


            def main():
                a = np.ones(8, dtype=np.int32)
                out = np.zeros_like(a)
                double_kernel[1, 8](a, out)
                double_kernel[1, 8](a)
            """
        ),
        encoding="utf-8",
    )
    result = cuda_engine.analyze(path)
    (info,) = result.functions
    assert info.name == "double" and info.kind == "cuda"
    (signature,) = info.signatures
    assert signature.ok and signature.source == "python-caller"
    assert signature.args == ["array(int32, 1d, C)", "array(int32, 1d, C)"]
    assert [d.code for d in result.diagnostics if d.severity == "error"] == ["cuda-launch-arguments"]
