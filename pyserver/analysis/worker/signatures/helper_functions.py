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


def helper_function(
    path: str, node: ast.FunctionDef | ast.AsyncFunctionDef, module: Any, tree: ast.Module
) -> Any | None:
    """The stand-in of the top-level function `node` of the file at `path` (parsed as `tree`), whose
    module the analysis loaded as `module`, or None where it is no plain function: decorated, async, or
    with a default that is not a constant (evaluating it could run something)."""
    if not isinstance(node, ast.FunctionDef) or node.decorator_list or module is None:
        return None
    arguments = node.args
    if arguments.vararg or arguments.kwarg:
        return None
    if not all(constant_default(d) for d in [*arguments.defaults, *(d for d in arguments.kw_defaults if d)]):
        return None
    known = _made.get(id(node))
    if known is not None and known[0] is node and known[1] is module:
        return numba_api.python_helper_stand_in(known[2])
    function = _from_source(path, node, module, tree)
    if function is None:
        return None
    _made[id(node)] = (node, module, function)
    return numba_api.python_helper_stand_in(function)


def _from_source(path: str, node: ast.FunctionDef, module: Any, tree: ast.Module) -> Any | None:
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
    namespace = vars(module)
    missing = {n for n in _names_read(codes[0]) if n not in namespace}
    constants = _literal_globals(tree, missing) if missing else {}
    if constants:  # the module's constants that the definitions-only load did not need, as literals
        namespace = {**namespace, **constants}
    function = pytypes.FunctionType(codes[0], namespace, node.name, defaults)
    function.__kwdefaults__ = {
        a.arg: ast.literal_eval(d)
        for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if d is not None
    } or None
    function.__module__ = getattr(module, "__name__", function.__module__)
    return function


def _names_read(code: pytypes.CodeType) -> set[str]:
    """The global names a function's code (and the code of the functions nested in it) may read."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, pytypes.CodeType):
            names |= _names_read(constant)
    return names


def _literal_globals(tree: ast.Module, names: set[str]) -> dict[str, Any]:
    """Of `names`, those the module binds once, at its top level, to a literal (`N = 1000`), with their
    values: what the function reads of them when the program runs. A name a function declares `global`
    is not one (the function may assign it)."""
    declared = {n for node in ast.walk(tree) if isinstance(node, ast.Global) for n in node.names}
    bindings: dict[str, int] = {}
    literals: dict[str, Any] = {}
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        bound: list[str] = []
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound = [node.id]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound = [node.name]  # its body binds its own names, not the module's
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound = [(a.asname or a.name).split(".")[0] for a in node.names]
        for name in bound:
            bindings[name] = bindings.get(name, 0) + 1
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            pending.extend(ast.iter_child_nodes(node))
    for statement in tree.body:
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id in names
        ):
            try:
                literals[statement.targets[0].id] = ast.literal_eval(statement.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
    return {n: v for n, v in literals.items() if bindings.get(n) == 1 and n not in declared}
