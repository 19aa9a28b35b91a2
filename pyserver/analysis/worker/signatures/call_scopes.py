"""Which function a Python call reaches, where the caller's own names decide it: a name a function binds
(a parameter, a local) is no module global, so `def run(sort): sort(a)` never calls the module's `sort`;
it calls what `run` is given, and `run(mergesort)` makes it a call of `mergesort`. `scopes` and `calls`
are a file's index (call_index.IndexedFile): qualified name -> Scope, first name -> CallSites.
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Mapping
from typing import Any

from pyserver.analysis.worker.load import names

# function -> the names its own code binds (names.local_names), kept while the node lives
_LOCAL_NAMES: weakref.WeakKeyDictionary[ast.AST, set[str]] = weakref.WeakKeyDictionary()


def _locals_of(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function binds but by imports: a name it imports (`from pkg import kernel` inside a
    test) is the module function itself, which the call index resolves through its imports."""
    found = _LOCAL_NAMES.get(node)
    if found is None:
        imported = {
            alias.asname or alias.name.split(".")[0]
            for inner in ast.walk(node)
            if isinstance(inner, ast.Import | ast.ImportFrom)
            for alias in inner.names
        }
        found = _LOCAL_NAMES[node] = names.local_names(node) - imported
    return found


def shadowed(scopes: Mapping[str, Any], scope: Any, name: str) -> bool:
    """Whether `name` in `scope`'s code is no module global: a parameter or a local of the function, or of
    a function around it."""
    if isinstance(scope.node, ast.Module):
        return False
    parts = scope.qualname.split(".<locals>.")
    for depth in range(len(parts), 0, -1):
        outer = scope if depth == len(parts) else scopes.get(".<locals>.".join(parts[:depth]))
        if outer is not None and not isinstance(outer.node, ast.Module) and name in _locals_of(outer.node):
            return True
    return False


def _assigned(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function's body assigns (a parameter among them only when assigned again)."""
    return {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del)
    }


def passed_on(scopes: Mapping[str, Any], calls: Mapping[str, list[Any]], name: str) -> list[Any]:
    """The calls of a module function's parameter that the function `name` is passed to by position
    (`run(mergesort)` with `def run(sort): ... sort(arr)`), as call sites in the receiving function's
    scope; not where the receiver assigns the parameter again."""
    found: list[Any] = []
    for sites in calls.values():
        for site in sites:
            receiver = scopes.get(site.name)
            if receiver is None or isinstance(receiver.node, ast.Module) or "." in site.name:
                continue
            arguments = site.call.args
            positions = [
                i
                for i, a in enumerate(arguments[: len(receiver.params)])
                if isinstance(a, ast.Name) and a.id == name
            ]
            if not positions or any(isinstance(a, ast.Starred) for a in arguments):
                continue
            if shadowed(scopes, site.scope, name):
                continue
            assigned = _assigned(receiver.node)
            for param in (receiver.params[i] for i in positions):
                if param not in assigned:
                    found += [s for s in calls.get(param, []) if s.scope is receiver and s.name == param]
    return found


# scope's node -> function name -> the local names bound once to it (_local_aliases), kept while it lives
_LOCAL_ALIASES: weakref.WeakKeyDictionary[ast.AST, dict[str, list[str]]] = weakref.WeakKeyDictionary()


def _own_nodes(node: ast.AST) -> list[ast.AST]:
    """The nodes of a scope's own code: not those of the functions, lambdas and classes it defines."""
    found: list[ast.AST] = []
    pending = list(ast.iter_child_nodes(node))
    while pending:
        inner = pending.pop()
        found.append(inner)
        if not isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            pending.extend(ast.iter_child_nodes(inner))
    return found


def _choices(value: ast.expr) -> list[str]:
    """The function names a value picks among: `kernel`, or each of `kernel_pw if pointwise else kernel_av`."""
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.IfExp):
        return _choices(value.body) + _choices(value.orelse)
    return []


def _local_aliases(node: ast.AST) -> dict[str, list[str]]:
    """function name -> the names the scope's own code binds to it in its only assignment of that name."""
    found = _LOCAL_ALIASES.get(node)
    if found is None:
        own = _own_nodes(node)
        stores: dict[str, int] = {}
        for inner in own:
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store | ast.Del):
                stores[inner.id] = stores.get(inner.id, 0) + 1
        found = {}
        for inner in own:
            if not (isinstance(inner, ast.Assign) and len(inner.targets) == 1):
                continue
            target = inner.targets[0]
            if isinstance(target, ast.Name) and stores.get(target.id) == 1:
                for function in _choices(inner.value):
                    if function != target.id:
                        found.setdefault(function, []).append(target.id)
        _LOCAL_ALIASES[node] = found
    return found


def aliased_calls(scopes: Mapping[str, Any], calls: Mapping[str, list[Any]], name: str) -> list[Any]:
    """The calls through a name a scope binds, once, to the function `name` (`func = kernel`, or one of
    several: `func = kernel_pw if pointwise else kernel_av`), in that scope: each is a call of `name`
    with those arguments where it picks it."""
    found: list[Any] = []
    for scope in scopes.values():
        for local in _local_aliases(scope.node).get(name, ()):
            if not shadowed(scopes, scope, name):
                found += [s for s in calls.get(local, []) if s.scope is scope and s.name == local]
    return found


def value_reads(scopes: Mapping[str, Any], name: str) -> list[int]:
    """The lines where Python code reads the module function `name` other than to call it (kept in a
    dict, passed on, returned), in the scopes where the name is that function (not a parameter or a
    local of the same name)."""
    lines: set[int] = set()
    for scope in scopes.values():
        if shadowed(scopes, scope, name):
            continue
        own = _own_nodes(scope.node)
        callees = {id(n.func) for n in own if isinstance(n, ast.Call)}
        lines |= {
            n.lineno
            for n in own
            if isinstance(n, ast.Name)
            and n.id == name
            and isinstance(n.ctx, ast.Load)
            and id(n) not in callees
        }
    return sorted(lines)


def callee_text(node: ast.expr) -> str | None:
    """The name a call is made through: `kernel`, or `module.attr` text; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def receiver_of_own_method(scope: Any, cls: str, name: str) -> bool:
    """Is `name` the receiver (`self`) of a method defined in class `cls`'s own body?"""
    node = scope.node
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or scope.qualname.count(".") != 1:
        return False
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
    return scope.qualname.startswith(cls + ".") and not static and scope.params[:1] == [name]


def defines(indexed: Any, name: str) -> bool:
    """Does the module bind `name` itself: a top-level function, class, or a jit call's dispatcher?"""
    return (
        name in indexed.top_level_defs
        or name in indexed.jit_aliases
        or name in indexed.jit_alias_spans
        or name in indexed.top_level_classes
    )
