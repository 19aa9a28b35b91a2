"""CUDA kernels in the analysis: argument types from their launches, and CUDA's own mistakes explained.

Kernels and device functions go through the same analysis as CPU functions (inference with the CUDA
typing context: numba_api.infer_cuda). This module adds what is CUDA's own:
- launch_candidates: argument types from launches in the file (signatures/cuda_launches), and an
  error at a launch with the wrong number of arguments;
- refine: Numba's typing errors on CUDA-specific mistakes (a NumPy allocation, a local or shared array
  whose shape is not a compile-time constant) get their own code; a kernel that returns a value;
  Python objects and strings in a kernel; `raise` in a kernel; float64 arithmetic on float32 values.
"""

from __future__ import annotations

import ast
from typing import Any

from pyserver import numba_api
from pyserver.analysis import codes
from pyserver.analysis.model import Diagnostic, FunctionInfo, Range
from pyserver.analysis.worker.discover.discovery import JitFunction
from pyserver.analysis.worker.infer.analysis_run import AnalysisRun
from pyserver.analysis.worker.signatures import cuda_launches
from pyserver.analysis.worker.signatures.signature_sources import CallerLink, Candidate

_NUMPY_ALLOCATORS = {
    "empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like", "arange",
    "array", "asarray", "copy", "linspace", "identity", "eye",
}  # fmt: skip
_OBJECT_TYPE_MARKS = ("pyobject", "list(", "set(", "ListType", "DictType", "dict(")


def _diagnostic(
    path: str, range_: Range, severity: str, code: str, message: str, function: str, signature: str | None
) -> Diagnostic:
    return Diagnostic(
        path=path,
        range=range_,
        severity=severity,  # type: ignore[arg-type]
        code=code,
        message=message,
        function=function,
        signature=signature,
        codeDescription=codes.doc_link(code),
    )


def _is_kernel(function: JitFunction) -> bool:
    return function.kind == "cuda" and not function.options.get("device")


def _function_nodes(tree: ast.Module | None) -> dict[tuple[str, int], ast.FunctionDef]:
    """The file's `def`s by name and line (one walk of the tree for all its kernels)."""
    if tree is None:
        return {}
    return {(n.name, n.lineno): n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def launch_candidates(run: AnalysisRun) -> None:
    """Candidates from the file's launches for its kernels without other argument types; an error at
    each launch whose number of arguments is not the kernel's."""
    tree = run.index.tree
    kernels = {f.name: f for f in run.discovered.get(run.path, []) if _is_kernel(f) and not f.nested}
    if tree is None or not kernels:
        return
    for statement in tree.body:  # `k = cuda.jit(f)`: launches name k, the kernel is f
        if not isinstance(statement, ast.Assign):
            continue
        value = statement.value
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr == "jit"
            and value.args
            and isinstance(value.args[0], ast.Name)
            and value.args[0].id in kernels
        ):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    kernels.setdefault(target.id, kernels[value.args[0].id])
    for launch in cuda_launches.find_launches(tree, set(kernels)):
        function = kernels[launch.kernel]
        params = function.params
        line = launch.call.lineno
        if launch.why_unknown is None and len(launch.call.args) != len(params):
            run.result.diagnostics.append(
                _diagnostic(
                    run.path,
                    run.index.node_range(launch.call),
                    "error",
                    "cuda-launch-arguments",
                    f"Kernel '{function.name}' takes {len(params)} argument"
                    f"{'s' if len(params) != 1 else ''} ({', '.join(params)}) but this launch passes "
                    f"{len(launch.call.args)}.",
                    function.name,
                    None,
                )
            )
            continue
        cands = run.candidates.get(function.name)
        if cands is None or launch.why_unknown is not None or any(a is None for a in launch.args):
            continue
        args = tuple(numba_api.described_type(a) for a in launch.args if a is not None)
        if len(args) != len(params) or any(a is None for a in args):
            continue
        existing = next((c for c in cands if c.args == args), None)
        if existing is None:
            existing = Candidate(args, None, "python-caller")
            cands.append(existing)
        link = CallerLink(run.path, launch.scope, line)
        if link not in existing.callers:
            existing.callers.append(link)


def refine(run: AnalysisRun, first_diagnostic: int) -> None:
    """CUDA's own mistakes in the file's kernels and device functions (diagnostics added after
    `first_diagnostic` are the analysis's own, some of which get a CUDA code)."""
    functions = [f for f in run.discovered.get(run.path, []) if f.kind == "cuda"]
    if not functions:
        return
    nodes = _function_nodes(run.index.tree)
    diagnostics = run.result.diagnostics
    for function in functions:
        node = nodes.get((function.name, function.def_line))
        info = run.infos.get(function.name)
        if node is None or info is None:
            continue
        allocations, dynamic_shapes = _allocation_lines(node)
        for diagnostic in diagnostics[first_diagnostic:]:
            if diagnostic.function != function.name:
                continue
            line = diagnostic.range.start.line + 1
            if (
                diagnostic.code == "analysis-failed"
                and allocations
                and "Signature mismatch" in diagnostic.message
            ):
                # NumPy's implementations do not compile for the GPU: Numba fails inside them.
                _recode(diagnostic, "cuda-numpy-allocation", "NumPy cannot allocate memory inside a kernel")
                diagnostic.range = run.index.line_range(min(allocations))
                continue
            names_allocator = any(
                f"function {name}>" in diagnostic.message or f"function np.{name} " in diagnostic.message
                for name in _NUMPY_ALLOCATORS
            )
            if diagnostic.code in ("typing-error", "unsupported") and allocations and names_allocator:
                # numba-cuda reports it at the kernel: the allocation is where it is written
                if line not in allocations:
                    diagnostic.range = run.index.line_range(min(allocations))
                _recode(diagnostic, "cuda-numpy-allocation", "NumPy cannot allocate memory inside a kernel")
                continue
            if diagnostic.code != "typing-error":
                continue
            if line in allocations:
                _recode(diagnostic, "cuda-numpy-allocation", "NumPy cannot allocate memory inside a kernel")
            elif line in dynamic_shapes:
                _recode(
                    diagnostic,
                    "cuda-array-shape",
                    "a local or shared array's shape must be a compile-time constant",
                )
        diagnostics.extend(_kernel_findings(run, function, node, info))


def _recode(diagnostic: Diagnostic, code: str, cause: str) -> None:
    diagnostic.code = code
    diagnostic.message = f"CUDA: {cause}. {diagnostic.message}"


def _local_names(node: ast.FunctionDef) -> set[str]:
    """The function's parameters and the names it assigns: never compile-time constants."""
    assigned = {
        t.id
        for s in ast.walk(node)
        if isinstance(s, ast.Assign)
        for t in s.targets
        if isinstance(t, ast.Name)
    }
    return {a.arg for a in node.args.args} | assigned


def _allocation_lines(node: ast.FunctionDef) -> tuple[set[int], set[int]]:
    local_names = _local_names(node)
    allocations: set[int] = set()
    dynamic_shapes: set[int] = set()
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Call) or not isinstance(sub.func, ast.Attribute):
            continue
        func = sub.func
        owner = func.value
        if isinstance(owner, ast.Name) and owner.id in ("np", "numpy") and func.attr in _NUMPY_ALLOCATORS:
            allocations.update(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
        elif (
            func.attr == "array"
            and isinstance(owner, ast.Attribute)
            and owner.attr in ("local", "shared")
            and sub.args
            and any(isinstance(n, ast.Name) and n.id in local_names for n in ast.walk(sub.args[0]))
        ):
            dynamic_shapes.update(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
    return allocations, dynamic_shapes


def _kernel_findings(
    run: AnalysisRun, function: JitFunction, node: ast.FunctionDef, info: FunctionInfo
) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    path, index = run.path, run.index
    local_names = _local_names(node)
    for sub in ast.walk(node):  # a shape read from a parameter or local: not a compile-time constant
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr == "array"
            and isinstance(sub.func.value, ast.Attribute)
            and sub.func.value.attr in ("local", "shared")
            and sub.args
            and any(isinstance(n, ast.Name) and n.id in local_names for n in ast.walk(sub.args[0]))
            and not any(
                d.function == function.name and d.severity == "error" and d.range.start.line + 1 == sub.lineno
                for d in run.result.diagnostics
            )
        ):
            found.append(
                _diagnostic(
                    path,
                    index.node_range(sub.args[0]),
                    "error",
                    "cuda-array-shape",
                    "CUDA: the shape of a cuda.local.array or cuda.shared.array must be a compile-time "
                    "constant (a literal or a global constant), not a variable.",
                    function.name,
                    None,
                )
            )
    kernel = _is_kernel(function)
    for signature in info.signatures:
        if kernel and signature.ok and signature.return_type not in (None, "none"):
            returns = [s for s in ast.walk(node) if isinstance(s, ast.Return) and s.value is not None]
            found.append(
                _diagnostic(
                    path,
                    index.node_range(returns[0]) if returns else index.line_range(function.def_line),
                    "error",
                    "cuda-kernel-return",
                    f"CUDA: kernel '{function.name}' returns a value ({signature.return_type}); a kernel must "
                    "return nothing. Write results into an output array argument.",
                    function.name,
                    "(" + ", ".join(signature.args) + ")",
                )
            )
        for variable in signature.variables:
            text = str(getattr(variable, "type", ""))
            if text == "unicode_type":
                # A string constant compiles where Numba folds it away (len("abc")); any other use does not.
                found.append(
                    _diagnostic(
                        path,
                        index.line_range(int(getattr(variable, "line", function.def_line))),
                        "warning",
                        "cuda-python-object",
                        f"CUDA: '{getattr(variable, 'name', '?')}' is a string: a kernel can use a string "
                        "constant only where Numba folds it away; any other use fails to compile for the GPU.",
                        function.name,
                        "(" + ", ".join(signature.args) + ")",
                    )
                )
            elif any(mark in text for mark in _OBJECT_TYPE_MARKS):
                found.append(
                    _diagnostic(
                        path,
                        index.line_range(int(getattr(variable, "line", function.def_line))),
                        "error",
                        "cuda-python-object",
                        f"CUDA: '{getattr(variable, 'name', '?')}' is a {text}: strings, lists, dicts, sets "
                        "and Python objects cannot exist on the GPU.",
                        function.name,
                        "(" + ", ".join(signature.args) + ")",
                    )
                )
        if all("float64" not in a for a in signature.args) and any("float32" in a for a in signature.args):
            for line, name, text in _promotions(signature.call_types):
                found.append(
                    _diagnostic(
                        path,
                        index.line_range(line),
                        "information",
                        "cuda-float64",
                        f"CUDA: '{name}' computes in float64 {text} although the inputs are float32: "
                        "float64 is much slower on most GPUs. Write float constants as np.float32(2.0).",
                        function.name,
                        "(" + ", ".join(signature.args) + ")",
                    )
                )
    for sub in ast.walk(node):
        if kernel and isinstance(sub, ast.Raise) and not function.options.get("debug"):
            found.append(
                _diagnostic(
                    path,
                    index.node_range(sub),
                    "warning",
                    "cuda-exception",
                    "CUDA: an exception raised in a kernel is ignored unless the kernel is compiled with "
                    "debug=True (and opt=False): the launch goes on as if nothing happened.",
                    function.name,
                    None,
                )
            )
    return found


def _promotions(call_types: list[Any]) -> list[tuple[int, str, str]]:
    """Arithmetic that gives a float64 result (Numba's calltypes show the operands after the float32 one
    was cast to float64): (line, operator, types). Called only for kernels whose float inputs are float32."""
    found: list[tuple[int, str, str]] = []
    seen: set[int] = set()
    for call in call_types:
        line, name, text = int(call.line), str(call.name), str(call.signature)
        if name not in ("add", "sub", "mul", "truediv", "pow", "iadd", "isub", "imul", "itruediv"):
            continue
        arguments, _, result = text.partition(" -> ")
        if result.strip() == "float64" and "float64" in arguments and line not in seen:
            seen.add(line)
            found.append((line, name, text))
    return found
