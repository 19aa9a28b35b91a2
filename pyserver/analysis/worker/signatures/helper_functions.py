"""A workspace file's plain Python function, for a slice that calls it (`data = make_data(1000)`): the
function object, made from its `def` without running anything, so that Numba can type its body for the
call's argument types (numba_api.python_helper_stand_in)."""

from __future__ import annotations

import ast
import types as pytypes
from typing import Any

from pyserver import numba_api
from pyserver.analysis.worker.signatures.caller_slices import constant_default
from pyserver.caches import BoundedCache, bounded_cache

# id(def node) -> (the node, the module, the function): a file parsed again has new nodes
_made: BoundedCache[int, tuple[ast.AST, pytypes.ModuleType, Any]] = bounded_cache(
    "signatures.helper_functions", 512
)


def helper_function(path: str, node: ast.FunctionDef | ast.AsyncFunctionDef, module: Any) -> Any | None:
    """The stand-in of the top-level function `node` of the file at `path`, whose module the analysis
    loaded as `module`, or None where it is no plain function: decorated, async, or with a default that
    is not a constant (evaluating it could run something)."""
    if not isinstance(node, ast.FunctionDef) or node.decorator_list or module is None:
        return None
    arguments = node.args
    if arguments.vararg or arguments.kwarg:
        return None
    if not all(constant_default(d) for d in [*arguments.defaults, *(d for d in arguments.kw_defaults if d)]):
        return None
    loaded = getattr(module, node.name, None)
    code = getattr(loaded, "__code__", None)
    if code is not None and code.co_filename == path and code.co_firstlineno == node.lineno:
        return numba_api.python_helper_stand_in(loaded)  # the module defined it: that very function
    known = _made.get(id(node))
    if known is not None and known[0] is node and known[1] is module:
        return numba_api.python_helper_stand_in(known[2])
    function = _from_source(path, node, module)
    if function is None:
        return None
    _made[id(node)] = (node, module, function)
    return numba_api.python_helper_stand_in(function)


def _from_source(path: str, node: ast.FunctionDef, module: Any) -> Any | None:
    """The function its `def` would make in `module`, made from its code object: no statement runs (the
    module code that would evaluate the `def`'s annotations never does; its defaults are constants)."""
    try:  # the `def` alone (undecorated), as a module whose code never runs: its function's code is used
        compiled = compile(ast.Module(body=[node], type_ignores=[]), path, "exec")
    except (SyntaxError, ValueError, TypeError):
        return None
    codes = [c for c in compiled.co_consts if isinstance(c, pytypes.CodeType) and c.co_name == node.name]
    if len(codes) != 1:
        return None
    arguments = node.args
    defaults = tuple(ast.literal_eval(d) for d in arguments.defaults) or None
    function = pytypes.FunctionType(codes[0], vars(module), node.name, defaults)
    function.__kwdefaults__ = {
        a.arg: ast.literal_eval(d)
        for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if d is not None
    } or None
    function.__module__ = getattr(module, "__name__", function.__module__)
    return function
