"""A Python caller's `isinstance` test of its parameter (`if isinstance(first, dict): ... elif
isinstance(first, Dict): kernel(first, second) else: ...`, aeon's histogram intersection): with the
parameter's type known from the caller's own callers, the test's outcome is known where every value of that
type is, or none is, an instance of the classes tested. The branch that cannot run is left out of the slice,
and its calls give no types (a call there would be typed for arguments it never gets: a false error)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from pyserver import numba_api


def decided_tests(
    body: list[ast.stmt],
    param_types: dict[str, Any],
    rebound: set[str],
    resolve: Callable[[ast.expr], Any],
) -> dict[int, bool]:
    """id(`if` statement) -> its test's outcome, for each `if` under `body` whose test is decided:
    `isinstance(param, C)` or `isinstance(param, (C1, C2))` (or `not` of one) of a parameter the function
    never binds again (`rebound`), each class resolved by `resolve` (None: not a known class)."""
    decided: dict[int, bool] = {}
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.If):
            outcome = _outcome(node.test, param_types, rebound, resolve)
            if outcome is not None:
                decided[id(node)] = outcome
    return decided


def ruled_out(body: list[ast.stmt], decided: dict[int, bool]) -> set[int]:
    """The ids of the statements (nested ones too) in the branches that the decided tests rule out."""
    out: set[int] = set()
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.If) and id(node) in decided:
            for statement in node.orelse if decided[id(node)] else node.body:
                out.update(id(n) for n in ast.walk(statement))
    return out


def _outcome(
    test: ast.expr, param_types: dict[str, Any], rebound: set[str], resolve: Callable[[ast.expr], Any]
) -> bool | None:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _outcome(test.operand, param_types, rebound, resolve)
        return None if inner is None else not inner
    if not (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and len(test.args) == 2
        and not test.keywords
        and isinstance(test.args[0], ast.Name)
    ):
        return None
    name = test.args[0].id
    if name not in param_types or name in rebound or resolve(test.func) is not isinstance:
        return None
    tested = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    classes = [resolve(c) for c in tested]
    if not classes or not all(isinstance(c, type) for c in classes):
        return None
    candidates = numba_api.python_classes_of(param_types[name])
    if candidates is None:
        return None
    wanted = tuple(classes)
    if all(issubclass(c, wanted) for c in candidates):
        return True  # every value of the type is an instance
    if not any(issubclass(c, k) or issubclass(k, c) for c in candidates for k in wanted):
        return False  # no value of the type is an instance, nor of a subclass of a class tested
    return None
