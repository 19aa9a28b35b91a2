"""Ground truth for CUDA kernels: every type the analysis shows equals the typemap of a real compile to
PTX (numba.cuda.compile_ptx, no GPU needed once NVVM is present), and every error it shows is an error
of the real compile. The corpus (tests/cuda/corpus) is Numba's documented CUDA patterns; the mistakes
(tests/cuda/mistakes) each hold one error."""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import FileResult
from pyserver.record import types_codec

# Errors the analysis shows that are not compile errors: a launch checked on the Python side.
PYTHON_SIDE_CODES = {"cuda-launch-arguments"}


@dataclass
class Tally:
    functions: int = 0
    typed: int = 0  # signatures the analysis typed
    compiled: int = 0  # signatures compiled to PTX
    variables: int = 0  # types compared
    errors: int = 0  # errors compared
    wrong: list[str] = field(default_factory=list)  # a shown type that differs from the compile's
    false: list[str] = field(default_factory=list)  # a shown error the compile does not have


def _module(path: Path) -> Any:
    """The corpus file imported with its kernels lazy: a decorator signature would compile at import
    for the current device (which needs a GPU); the test compiles each signature itself."""
    from numba import cuda as numba_cuda

    original = numba_cuda.jit

    def lazy_jit(func_or_sig: Any = None, **options: Any) -> Any:
        if callable(func_or_sig):
            return original(func_or_sig, **options)
        return lambda func: original(func, **options)

    name = f"cuda_corpus_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    numba_cuda.jit = lazy_jit
    try:
        spec.loader.exec_module(module)
    finally:
        numba_cuda.jit = original
    return module


def _compare(folder: Path, engine: AnalysisEngine, tally: Tally) -> dict[str, FileResult]:
    from pyserver.numba_api import cuda

    cuda.install_cuda_target_patches()  # library device functions compile without a GPU here too
    results = {}
    for path in sorted(folder.glob("*.py")):
        result = engine.analyze(path)
        results[path.name] = result
        module = _module(path)
        for info in result.functions:
            if info.kind != "cuda":
                continue
            tally.functions += 1
            dispatcher = getattr(module, info.name)
            device = bool(dispatcher.targetoptions.get("device"))
            errors = [
                d
                for d in result.diagnostics
                if d.function == info.name and d.severity == "error" and d.code not in PYTHON_SIDE_CODES
            ]
            for signature in info.signatures:
                assert signature.exact is not None, (path.name, info.name)
                args = tuple(types_codec.decode(e) for e in json.loads(signature.exact))
                tally.typed += 1
                compiled = cuda.compile_ptx_typed(dispatcher.py_func, args, device)
                where = f"{path.name}:{info.name}{tuple(signature.args)}"
                if compiled.ok:
                    tally.compiled += 1
                    for variable in signature.variables:
                        tally.variables += 1
                        # A literal shows as its type plus the literal ("int64 (literal 0)").
                        real = (compiled.unliteral_typemap if variable.literal else compiled.typemap).get(
                            variable.ssa_name
                        )
                        if real != variable.type:
                            tally.wrong.append(
                                f"{where} {variable.ssa_name}: shown {variable.type}, compiled {real}"
                            )
                    shown_errors = [
                        d for d in errors if d.signature in (None, "(" + ", ".join(signature.args) + ")")
                    ]
                    for error in shown_errors:
                        tally.false.append(f"{where}: shown [{error.code}] {error.message}, but it compiles")
                else:
                    tally.errors += len(errors)
    return results


def test_corpus_types_equal_the_compiled_typemaps(
    nvvm: str, cuda_engine: AnalysisEngine, cuda_workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tally = Tally()
    results = _compare(cuda_workspace / "corpus", cuda_engine, tally)
    with capsys.disabled():
        print(
            f"\nCUDA corpus: {len(results)} programs, {tally.functions} kernels and device functions, "
            f"{tally.typed} signatures typed, {tally.compiled} compiled to PTX, {tally.variables} types "
            f"compared: {len(tally.wrong)} wrong, {len(tally.false)} false errors"
        )
    assert len(results) >= 15
    assert not tally.wrong, tally.wrong
    assert not tally.false, tally.false
    assert tally.typed == tally.compiled and tally.functions and tally.typed >= tally.functions
    for name, result in results.items():  # the corpus is correct code: nothing to report
        assert [d for d in result.diagnostics if d.severity in ("error", "warning")] == [], name


def test_every_error_shown_is_an_error_of_the_real_compile(
    nvvm: str, cuda_engine: AnalysisEngine, cuda_workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tally = Tally()
    results = _compare(cuda_workspace / "mistakes", cuda_engine, tally)
    with capsys.disabled():
        print(
            f"\nCUDA mistakes: {len(results)} programs, {tally.typed} signatures typed, {tally.errors} errors "
            f"shown where the real compile fails, {len(tally.wrong)} wrong, {len(tally.false)} false errors"
        )
    assert not tally.wrong, tally.wrong
    assert not tally.false, tally.false
    codes = {d.code for result in results.values() for d in result.diagnostics}
    assert {
        "typing-error",
        "cuda-kernel-return",
        "cuda-numpy-allocation",
        "cuda-array-shape",
        "cuda-python-object",
        "cuda-launch-arguments",
        "cuda-float64",
    } <= codes
    assert tally.errors >= 5
