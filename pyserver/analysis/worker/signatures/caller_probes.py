"""How the probes of a Python caller's slice are read and its calls typed (python_callers.py).

A probe copies each argument of a call into a variable of its own (`__lens_arg_0_0 = data`); the copies
of a constant, and of a local Numba keeps as one variable, are left out of the synthesized function
and read from what they copied. A workspace kernel the slice calls is typed for the types Python passes
its dispatcher at run time.

What they read of Numba is in pyserver.numba_api (probes.py, callees.python_call_types).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from pyserver import numba_api
from pyserver.analysis.worker.signatures.indexed_file import ast_nodes


@dataclass
class LeftOut:
    """Probe copies left out of a slice: each is read from what it copied instead."""

    aliases: dict[str, str] = field(default_factory=dict)  # probe variable -> the local it copied
    constants: dict[str, Any] = field(default_factory=dict)  # probe variable -> its constant's type

    def key(self) -> str:  # for the slice cache: the slice's text no longer says what the probes read
        return repr((sorted(self.aliases.items()), sorted((n, str(t)) for n, t in self.constants.items())))


def leave_out_copies(function: ast.FunctionDef, copies: list[ast.Assign], walrus: bool) -> LeftOut:
    """Probe copies `__lens_arg_0_0 = data` that can be left out of the slice (each statement left out
    saves Numba's front end and inference a little, on every slice):
    - the copy of a local (or parameter) that Numba keeps as one variable (_count_bindings): its type is
      the copy's; a name that may be split into versions (`data.1`) keeps its copy (and should Numba
      split one all the same, _run types the slice again with every copy);
    - the copy of a constant: its type is the one Numba's inference gives a constant (numba_api.inferred_constant_type)."""
    bound: dict[str, int] = {a.arg: 1 for a in function.args.args}
    _count_bindings(function.body, {id(c) for c in copies}, walrus, bound)
    found = LeftOut()
    left_out: set[int] = set()
    for copy in copies:
        value, name = copy.value, copy.targets[0].id  # type: ignore[attr-defined]
        if isinstance(value, ast.Name) and bound.get(value.id) == 1:  # a global is not in `bound`
            found.aliases[name] = value.id
            left_out.add(id(copy))
        elif isinstance(value, ast.Constant):
            ty = numba_api.inferred_constant_type(value.value)
            if ty is not None:
                found.constants[name] = ty
                left_out.add(id(copy))
    if left_out:
        _leave_out(function.body, left_out)
    return found


def _count_bindings(
    body: list[ast.stmt], copies: set[int], walrus: bool, bound: dict[str, int], nested: bool = False
) -> None:
    """Which names Numba keeps as one variable (1) and which it may split into versions (2), the probe
    copies' targets aside. Numba's front end gives a name a new version (`data.1`) where a statement on
    every path through the function (not in a branch or a loop) binds it again; a binding inside a
    branch or a loop reuses the variable. A slice holds simple statements and the for/while/if that
    emit() builds (their tests are __lens_cond); `walrus`: the file may hold `:=`."""
    for stmt in body:
        if isinstance(stmt, ast.For | ast.While | ast.If):
            if isinstance(stmt, ast.For):
                _count_names([stmt.target], bound, True)  # bound in the loop's body
                if walrus:
                    _count_walrus(stmt.iter, bound)
            _count_bindings(stmt.body, copies, walrus, bound, True)
            _count_bindings(stmt.orelse, copies, walrus, bound, True)
        elif id(stmt) in copies:
            value = stmt.value  # type: ignore[attr-defined]
            if isinstance(value, ast.Name) and value.id not in bound:
                # Read before any binding (a later one in a loop): the copy is where Numba says it is
                # not defined, as it always has.
                bound[value.id] = 2
            if walrus:
                _count_walrus(value, bound)
        elif isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign):
            if walrus:
                _count_walrus(stmt, bound)
            _count_names(stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target], bound, nested)
        elif isinstance(stmt, ast.Expr | ast.Return | ast.Pass | ast.Break | ast.Continue):
            if walrus:
                _count_walrus(stmt, bound)
        else:  # `del`, or a statement that may nest others: any name it binds may have versions
            for node in ast_nodes(stmt):
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    bound[node.id] = 2
                elif isinstance(node, ast.Global | ast.Nonlocal):
                    bound.update(dict.fromkeys(node.names, 2))


def _count_names(targets: list[ast.expr], bound: dict[str, int], nested: bool) -> None:
    for target in targets:
        for node in ast_nodes(target):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bound[node.id] = 2 if node.id in bound and not nested else bound.get(node.id, 1)


def _count_walrus(node: ast.AST, bound: dict[str, int]) -> None:
    for sub in ast_nodes(node):
        if isinstance(sub, ast.NamedExpr):
            bound[sub.target.id] = 2


def _leave_out(body: list[ast.stmt], left_out: set[int]) -> None:
    body[:] = [s for s in body if id(s) not in left_out]
    for stmt in body:
        if isinstance(stmt, ast.For | ast.While | ast.If):
            _leave_out(stmt.body, left_out)
            _leave_out(stmt.orelse, left_out)
            if not stmt.body:
                stmt.body.append(ast.Pass())


def constant_shape(code: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """A compiled slice's bytecode with its int and float constants left out, and those constants: two
    slices of the same shape differ only in them (a constant repeated, or one Python folds, changes
    the bytecode itself)."""
    numbers = tuple(c for c in code.co_consts if type(c) in (int, float))
    shape = (
        code.co_code,
        code.co_names,
        code.co_varnames,
        code.co_freevars,
        code.co_cellvars,
        tuple(type(c) if type(c) in (int, float) else c for c in code.co_consts),
    )
    return shape, numbers
