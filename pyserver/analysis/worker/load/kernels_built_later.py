"""Kernels a module builds only when its code runs (`kernel = vectorize(["f4(f4)", "f8(f8)"])(discriminant)`
inside `main()`, as Numba's own examples do), made for the analysis from the source: each such call with
literal signatures, of a function the module defines at its top level, is made again with Numba's
decorators as the loader hooks them (recorded, nothing compiled), so that the function is typed at first
sight with those signatures, as a decorated one is. A call with anything but literals (signatures, options
other than `target` and `cache`, which only say where the loops run), or for a GPU target, is left alone;
nothing of the module's own code runs here.
"""

from __future__ import annotations

import ast
import types
from typing import Any

from pyserver.analysis.worker.discover.discovery import ImportNames, dotted_name

# builder -> how many leading positional arguments it takes as literals (signatures, then the layout)
_BUILDERS = {"numba.vectorize": 1, "numba.guvectorize": 2, "numba.jit": 1, "numba.njit": 1}
_PLACEMENT_OPTIONS = frozenset({"target", "cache"})  # where the loops run: no part of their types


def _literal(node: ast.expr) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _signatures_given(value: Any) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list | tuple) and bool(value) and all(isinstance(v, str) for v in value)
    )


def _build(call: ast.Call, imports: ImportNames) -> tuple[str, list[Any], dict[str, Any]] | None:
    """`builder(literal signatures, literal options)`: (its dotted name in the module, args, options)."""
    qualified = imports.resolve(call.func) or ""
    qualified = {"numba.core.decorators.jit": "numba.jit", "numba.core.decorators.njit": "numba.njit"}.get(
        qualified, qualified
    )
    count = _BUILDERS.get(qualified)
    spelled = dotted_name(call.func)
    if count is None or spelled is None or len(call.args) != count:
        return None
    args = []
    for node in call.args:
        ok, value = _literal(node)
        if not ok:
            return None
        args.append(value)
    if not _signatures_given(args[0]):
        return None
    options = {}
    for keyword in call.keywords:
        ok, value = _literal(keyword.value)
        if keyword.arg is None or (not ok and keyword.arg not in _PLACEMENT_OPTIONS):
            return None
        if keyword.arg == "target" and ok and value not in ("cpu", "parallel"):
            return None  # a CUDA kernel: typed for its own target, not the CPU's
        if ok and keyword.arg not in _PLACEMENT_OPTIONS:
            options[keyword.arg] = value
    return spelled, args, options


def build_kernels(module: types.ModuleType, tree: ast.Module, path: str, made: set[str]) -> list[str]:
    """Make, through the hooked decorators, the kernels of `module` (parsed as `tree`, from `path`) that
    only its running code builds; `made`: the names of the functions recorded already. Returns the names
    of the functions made."""
    imports = ImportNames(tree)
    top_level = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    built: list[str] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and len(node.args) == 1):
            continue
        target = node.args[0]
        if not isinstance(target, ast.Name) or target.id not in top_level or target.id in made:
            continue
        function = module.__dict__.get(target.id)
        code = getattr(function, "__code__", None)
        if not isinstance(function, types.FunctionType) or code is None or code.co_filename != path:
            continue
        found = _build(node.func, imports)
        if found is None:
            continue
        spelled, args, options = found
        builder: Any = module.__dict__.get(spelled.split(".")[0])
        for part in spelled.split(".")[1:]:
            builder = getattr(builder, part, None)
        if not callable(builder):
            continue
        try:
            builder(*args, **options)(function)
        except Exception:  # what Numba says of it shows where the module's own call runs, not here
            continue
        made.add(target.id)
        built.append(target.id)
    return built
