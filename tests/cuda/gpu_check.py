"""The CUDA corpus on a real GPU: each program's main() launches its kernels on the device, and the types
Numba compiled for those launches are compared with the types the analysis shows. Without a GPU it says so
and does nothing (exit 0). Run by scripts/cuda-gpu-check.sh and tests/cuda/test_cuda_gpu.py.

Usage: python tests/cuda/gpu_check.py [--record docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def gpu_name() -> str | None:
    """The current device's name, or None where no GPU (or no driver) is usable."""
    try:
        from numba import cuda

        if not cuda.is_available():
            return None
        name = cuda.get_current_device().name
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:
        return None


def run_corpus() -> tuple[int, int, int, list[str]]:
    """(programs run, kernels launched, types compared, differences)."""
    from pyserver.analysis.engine import AnalysisEngine

    workspace = Path(tempfile.mkdtemp(prefix="cuda-gpu-"))
    shutil.copytree(HERE / "corpus", workspace / "corpus")
    engine = AnalysisEngine(workspace, timeout_s=120.0)
    engine.start()
    programs = kernels = compared = 0
    differences: list[str] = []
    try:
        for path in sorted((workspace / "corpus").glob("*.py")):
            result = engine.analyze(path)
            module = _import(path)
            if hasattr(module, "main"):
                try:
                    module.main()
                except Exception as error:  # a program this GPU's numba-cuda refuses is reported, not fatal
                    differences.append(
                        f"{path.name}: main() failed on the GPU: {type(error).__name__}: {error}"
                    )
                    continue
                programs += 1
            for info in result.functions:
                dispatcher = getattr(module, info.name)
                for args, overload in dict(getattr(dispatcher, "overloads", {})).items():
                    kernels += 1
                    text = "(" + ", ".join(str(a) for a in args) + ")"
                    shown = next((s for s in info.signatures if "(" + ", ".join(s.args) + ")" == text), None)
                    if shown is None:
                        continue
                    typemap = overload.type_annotation.typemap if overload.type_annotation else {}
                    for variable in shown.variables:
                        compared += 1
                        real = typemap.get(variable.ssa_name)
                        if real is not None and variable.literal:
                            from numba.core import types

                            real = types.unliteral(real)
                        if str(real) != variable.type:
                            differences.append(
                                f"{path.name}:{info.name}{text} {variable.ssa_name}: {variable.type} != {real}"
                            )
    finally:
        engine.close()
    return programs, kernels, compared, differences


def _import(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"cuda_gpu_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", help="append the result to this Markdown file")
    options = parser.parse_args()
    card = gpu_name()
    if card is None:
        print("cuda-gpu-check: no GPU here (numba.cuda.is_available() is False): skipped, nothing compared.")
        return 0
    programs, kernels, compared, differences = run_corpus()
    line = (
        f"{datetime.date.today()}: {card}: {programs} corpus programs run, {kernels} compiled kernels and "
        f"device functions, {compared} types compared, {len(differences)} different"
    )
    print("cuda-gpu-check: " + line)
    for difference in differences:
        print("  " + difference)
    if options.record:
        with open(options.record, "a", encoding="utf-8") as out:
            out.write(f"- {line}\n")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
