"""Type inference of kernels with NVIDIA's numba-cuda package, which carries its own copy of Numba's
compiler (numba.cuda.core): its CUDA pipeline runs up to and including type inference, then stops.

Unlike the built-in target's inference (inference.py), a failed inference keeps no partial typemap:
the first error is reported, and the types show once the kernel types.
"""

from __future__ import annotations

import importlib
import re
import time
import warnings
from typing import Any

from pyserver.numba_api.core import function_id
from pyserver.numba_api.inference import error_info
from pyserver.numba_api.inference_model import CallInfo, Inference, ReturnSite, VariableInfo, source_name


def is_numba_cuda_package() -> bool:
    """numba.cuda is NVIDIA's numba-cuda (its own compiler core), not the target built into Numba."""
    try:
        importlib.import_module("numba.cuda.core.compiler")
    except ImportError:
        return False
    return True


_PLACE = re.compile(r'File "([^"]+)", line (\d+)')


class _TypedStop(Exception):
    """Ends the pipeline right after type inference, carrying its state."""

    def __init__(self, state: Any) -> None:
        super().__init__("typed")
        self.state = state


def _pipeline_class() -> Any:
    compiler = importlib.import_module("numba.cuda.compiler")
    machinery = importlib.import_module("numba.cuda.core.compiler_machinery")
    typed_passes = importlib.import_module("numba.cuda.core.typed_passes")

    @machinery.register_pass(mutates_CFG=False, analysis_only=True)
    class LensCudaTypedStop(machinery.AnalysisPass):  # type: ignore[misc,name-defined]
        _name = "numba_lens_cuda_typed_stop"

        def __init__(self) -> None:
            machinery.AnalysisPass.__init__(self)

        def run_pass(self, state: Any) -> bool:
            raise _TypedStop(state)

    class LensCudaTyping(compiler.CUDACompiler):  # type: ignore[misc,name-defined]
        def define_pipelines(self) -> list[Any]:
            full = compiler.CUDACompiler.define_pipelines(self)[0]
            pm = machinery.PassManager("cuda")
            for implementation, description in full.passes:
                pm.passes.append((implementation, description))
                if implementation is typed_passes.NopythonTypeInference:
                    break
            pm.add_pass(LensCudaTypedStop, "numba-lens: stop after type inference")
            pm.finalize()
            return [pm]

    return LensCudaTyping


_cache: dict[str, Any] = {}


def infer_numba_cuda(
    dispatcher: Any, args: tuple[Any, ...], return_type: Any | None, flags: Any
) -> Inference:
    """Front end + type inference of a kernel or device function with numba-cuda's own compiler."""
    started = time.perf_counter()
    result = Inference(args=args)
    py_func = dispatcher.py_func
    filename = py_func.__code__.co_filename
    compiler = importlib.import_module("numba.cuda.compiler")
    descriptor = importlib.import_module("numba.cuda.descriptor")
    if "pipeline" not in _cache:
        _cache["pipeline"] = _pipeline_class()
    state = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compiler.compile_extra(
                typingctx=descriptor.cuda_target.typing_context,
                targetctx=descriptor.cuda_target.target_context,
                func=py_func,
                args=args,
                return_type=return_type,
                flags=flags,
                locals={},
                pipeline_class=_cache["pipeline"],
            )
        except _TypedStop as stop:
            state = stop.state
        except Exception as exc:  # numba-cuda's own error classes: typing errors by name
            info = error_info(exc, filename)
            if info.line is None:  # the package's errors carry the place in their text only
                for place in _PLACE.finditer(str(exc)):
                    if place.group(1) == filename:
                        info.line = int(place.group(2))
            if info.kind == "other" and type(exc).__name__ == "TypingError":
                info.kind = "typing"
            if info.kind == "other":
                info.text = f"{type(exc).__name__}: {info.text}"
            result.errors.append(info)
    if state is not None:
        _collect(state, result)
    result.elapsed_ms = (time.perf_counter() - started) * 1000.0
    return result


def _collect(state: Any, result: Inference) -> None:
    """The variables, return sites and calls of a typed function (numba-cuda's IR, read by class name)."""
    func_ir, typemap, calltypes = state.func_ir, state.typemap or {}, state.calltypes or {}
    def_line = py_line = state.func_id.code.co_firstlineno
    seen: set[str] = set()
    for block in func_ir.blocks.values():
        for stmt in block.body:
            kind = type(stmt).__name__
            if kind == "Assign":
                name = stmt.target.name
                if name.startswith("$") or name in seen or name not in typemap:
                    continue
                seen.add(name)
                is_arg = type(stmt.value).__name__ == "Arg"
                line = def_line if is_arg else int(stmt.loc.line or py_line)
                result.variables.append(
                    VariableInfo(
                        source_name(name), name, typemap[name], line, is_arg or name in func_ir.arg_names
                    )
                )
            elif kind == "Return":
                result.returns.append(ReturnSite(int(stmt.loc.line), typemap.get(stmt.value.name)))
    for expr, sig in calltypes.items():
        if sig is None or getattr(expr, "op", None) in (None, "getiter", "iternext", "exhaust_iter"):
            continue
        fn = (
            expr._kws.get("fn") if hasattr(expr, "_kws") else None
        )  # Expr raises KeyError, not AttributeError
        name = str(getattr(fn, "__name__", expr.op))
        text = "(" + ", ".join(str(a) for a in sig.args) + f") -> {sig.return_type}"
        result.call_types.append((int(expr.loc.line or 0), name, text))
        fnty = typemap.get(expr.func.name) if expr.op == "call" else None
        callee = getattr(fnty, "dispatcher", None)
        if callee is not None and getattr(callee, "_numba_lens_workspace", False):
            result.calls.append(CallInfo(function_id(callee.py_func), tuple(sig.args), int(expr.loc.line)))
    result.return_type = state.return_type
