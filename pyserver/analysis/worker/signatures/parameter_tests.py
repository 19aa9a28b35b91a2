"""A Python caller's tests of its parameters, decided by the parameters' types (known from the caller's own
callers): the branch that cannot run gives no calls (a call there would be typed for arguments it never
gets: a false error).

- `isinstance(first, Dict)` (aeon's histogram intersection: `if isinstance(first, dict): ... elif
  isinstance(first, Dict): kernel(first, second) else: ...`): decided here, where every value of the type
  is, or none is, an instance of the classes tested; the branch ruled out is left out of the slice.
- `param is None`, `param.ndim == 1`, `len(param) == 2`: kept in the slice, where Numba's own pruning of
  dead branches decides them (slices.type_python_slice), as it does in jitted code."""

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


def kept_test_of(test: ast.expr, params: list[str]) -> bool:
    """Is `test` one of the parameter tests that stay in the slice (every other condition becomes an
    unknown one): `param is None`, `param is not None`, `param.ndim <op> N`, `len(param) <op> N`? With the
    parameter's type known, Numba's pruning of dead branches drops the branch that cannot run, so that
    `if resolution is None: raise ... else: f(resolution)` gives no call of f with None, and `if x.ndim ==
    1: f1(x) else: f2(x)` no call of f1 with a 2-D array."""
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant)
    ):
        return False
    op, left, constant = test.ops[0], test.left, test.comparators[0].value
    if isinstance(op, ast.Is | ast.IsNot):
        return constant is None and isinstance(left, ast.Name) and left.id in params
    if (
        not isinstance(op, ast.Eq | ast.NotEq | ast.Lt | ast.LtE | ast.Gt | ast.GtE)
        or type(constant) is not int
    ):
        return False
    if isinstance(left, ast.Attribute) and left.attr == "ndim":
        return isinstance(left.value, ast.Name) and left.value.id in params
    arguments = _builtin_call(left, "len", 1)
    return arguments is not None and isinstance(arguments[0], ast.Name) and arguments[0].id in params


def _builtin_call(node: ast.expr, name: str, count: int) -> list[ast.expr] | None:
    """The arguments of `node` if it calls `name` by that name with `count` positional arguments."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == name
        and len(node.args) == count
        and not node.keywords
    ):
        return node.args
    return None


def _outcome(
    test: ast.expr, param_types: dict[str, Any], rebound: set[str], resolve: Callable[[ast.expr], Any]
) -> bool | None:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _outcome(test.operand, param_types, rebound, resolve)
        return None if inner is None else not inner
    arguments = _builtin_call(test, "isinstance", 2)
    if arguments is None or not isinstance(arguments[0], ast.Name):
        return None
    name = arguments[0].id
    if name not in param_types or name in rebound or resolve(test.func) is not isinstance:  # type: ignore[attr-defined]
        return None
    tested = arguments[1].elts if isinstance(arguments[1], ast.Tuple) else [arguments[1]]
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
