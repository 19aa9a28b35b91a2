"""The parameters of a pytest test that calls a jitted function, typed without running anything: from
`@pytest.mark.parametrize` cases (each case's values, typed by Numba where the decorator stands) and
from fixtures that take no parameters (the type of the value they return or yield).

A mixin of python_callers.PythonCallerTypes, which provides the slice typing (`_type_scope`).
"""

from __future__ import annotations

import ast
import itertools
import os
from collections.abc import Iterator
from typing import Any

from pyserver import numba_api
from pyserver.analysis.worker.signatures.call_index import CallIndex
from pyserver.analysis.worker.signatures.caller_slices import names_read
from pyserver.analysis.worker.signatures.indexed_file import CallSite, Scope

MAX_CASES = 8  # parametrize cases typed per test (the product of stacked decorators included)

_ParamSets = list[tuple[dict[str, Any], str | None]]
_Outcome = str | tuple[list[Any], dict[str, Any]]


def parametrize_cases(
    function: ast.FunctionDef, module: ast.Module
) -> tuple[list[dict[str, ast.expr]], str | None]:
    """The cases of a test's `@pytest.mark.parametrize` decorators (stacked ones multiply): for each,
    parameter -> the expression of its value. ([], None) without such decorators; a reason where their
    values cannot be read from the source. The values may be a list written out in the decorator or
    in a module-level constant (`SIZES = [1, 10]`) that nothing else binds or changes."""
    per_decorator: list[list[dict[str, ast.expr]]] = []
    for decorator in function.decorator_list:
        if not (isinstance(decorator, ast.Call) and ast.unparse(decorator.func).endswith("parametrize")):
            continue
        keywords = {k.arg: k.value for k in decorator.keywords if k.arg}
        if "indirect" in keywords:
            return [], "its parametrize values go through fixtures (indirect), not followed"
        names_node = decorator.args[0] if decorator.args else keywords.get("argnames")
        values_node = decorator.args[1] if len(decorator.args) > 1 else keywords.get("argvalues")
        names = _argnames(names_node)
        if isinstance(values_node, ast.Name):
            values_node = _module_constant(module, values_node.id)
        if names is None or not isinstance(values_node, ast.List | ast.Tuple):
            return [], "its parametrize arguments are not written out in the source"
        cases: list[dict[str, ast.expr]] = []
        for value in values_node.elts:
            if isinstance(value, ast.Call) and ast.unparse(value.func).endswith("param"):
                items = list(value.args)  # pytest.param(v1, v2, marks=..., id=...)
            elif len(names) == 1:
                items = [value]
            elif isinstance(value, ast.Tuple | ast.List):
                items = list(value.elts)
            else:
                return [], "a parametrize case is not written out as a tuple"
            if len(items) != len(names) or any(isinstance(i, ast.Starred) for i in items):
                return [], "a parametrize case does not give one value per name"
            cases.append(dict(zip(names, items, strict=True)))
        per_decorator.append(cases)
    combined = [
        {name: value for case in product for name, value in case.items()}
        for product in itertools.islice(itertools.product(*per_decorator), MAX_CASES)
    ]
    return (combined if per_decorator else []), None


def _module_constant(module: ast.Module, name: str) -> ast.expr | None:
    """The list or tuple a module binds to `name` at its top level, where that is the name's only
    binding in the module and nothing changes it (an item stored, a method called, `global`); None
    otherwise."""
    values = [
        statement.value
        for statement in module.body
        if isinstance(statement, ast.Assign)
        and [ast.unparse(t) for t in statement.targets] == [name]
        and isinstance(statement.value, ast.List | ast.Tuple)
    ]
    if len(values) != 1:
        return None
    stores = 0
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            stores += 1
        elif isinstance(node, ast.Attribute | ast.Subscript) and isinstance(node.value, ast.Name):
            if node.value.id == name and (
                isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load)
            ):
                return None
        elif isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return None
    return values[0] if stores == 1 else None


def _argnames(node: ast.expr | None) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",") if n.strip()]
    if isinstance(node, ast.List | ast.Tuple) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


class TestParameterTypes:
    """Types of a test's parameters: parametrize cases, then fixtures."""

    index: CallIndex

    def _type_scope(
        self, scope: Scope, sites: list[CallSite], depth: int
    ) -> Iterator[tuple[CallSite, _Outcome]]:
        raise NotImplementedError  # PythonCallerTypes'

    def _test_param_types(self, scope: Scope, params: list[str], depth: int) -> _ParamSets:
        node = scope.node
        indexed = self.index.files.get(scope.path)
        if isinstance(node, ast.FunctionDef) and indexed is not None:
            cases, problem = parametrize_cases(node, indexed.tree)
        else:
            cases, problem = [], None
        if problem is not None:
            return [({}, f"'{scope.qualname}': {problem}")]
        from_cases = [p for p in params if cases and p in cases[0]]
        fixtures = self._fixture_types(scope, [p for p in params if p not in from_cases], depth)
        if not from_cases or fixtures[0][1] is not None:
            return fixtures
        typed_cases = self._case_types(scope, from_cases, cases, depth)
        if isinstance(typed_cases, str):
            return [({}, typed_cases)]
        return [({**case, **fixtures[0][0]}, None) for case in typed_cases]

    def _case_types(
        self, scope: Scope, params: list[str], cases: list[dict[str, ast.expr]], depth: int
    ) -> list[dict[str, Any]] | str:
        """Each case's values, typed where the test's body starts: at module level, as pytest evaluates
        them when the decorator runs (so they may read neither the test's parameters nor its locals)."""
        node = scope.node
        assert isinstance(node, ast.FunctionDef)
        local = set(scope.params) | {
            n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        }
        sites = []
        for case in cases:
            values = [case[p] for p in params]
            if any(names_read(v) & local for v in values):
                return f"a parametrize value of '{scope.qualname}' reads a name the test also binds"
            call = ast.Call(func=ast.Name(id="__lens_case__", ctx=ast.Load()), args=values, keywords=[])
            ast.copy_location(call, node.body[0])
            sites.append(CallSite(scope, call, "__lens_case__", anchor=node.body[0]))
        found: list[dict[str, Any]] = []
        for _site, outcome in self._type_scope(scope, sites, depth + 1):
            if isinstance(outcome, str):
                return f"a parametrize case of '{scope.qualname}': {outcome}"
            converted = [numba_api.dispatcher_arg_type(t) for t in outcome[0]]
            if any(t is None for t in converted):
                return f"a parametrize case of '{scope.qualname}' gives a value Numba cannot pass on"
            case_types = dict(zip(params, converted, strict=True))
            if case_types not in found:
                found.append(case_types)
        return found

    def _fixture_types(self, scope: Scope, params: list[str], depth: int) -> _ParamSets:
        """A test's parameters from pytest fixtures (its file's, or a conftest.py's up to the root) that take
        no parameters and end by returning (or yielding) a value: the type of that value."""
        chosen: dict[str, Any] = {}
        for param in params:
            fixture = self._fixture(scope.path, param)
            if fixture is None:
                return [
                    ({}, f"'{param}' of test '{scope.qualname}' is not a fixture defined in the workspace")
                ]
            fixture_scope, last = fixture
            if fixture_scope.params or fixture_scope.has_var_params:
                return [({}, f"the fixture '{param}' takes parameters (other fixtures), not followed")]
            returned = last.value if isinstance(last, ast.Return | ast.Expr) else None
            value = returned.value if isinstance(returned, ast.Yield) else returned
            if value is None:
                return [({}, f"the fixture '{param}' returns nothing Numba can type")]
            probe = ast.Call(func=ast.Name(id="__lens_fixture__", ctx=ast.Load()), args=[value], keywords=[])
            ast.copy_location(probe, last)
            site = CallSite(fixture_scope, probe, "__lens_fixture__", anchor=last)
            outcomes = [outcome for _site, outcome in self._type_scope(fixture_scope, [site], depth + 1)]
            typed = [o for o in outcomes if not isinstance(o, str)]
            if not typed:
                reason = next((o for o in outcomes if isinstance(o, str)), "it gives no type")
                return [({}, f"the fixture '{param}': {reason}")]
            converted = numba_api.dispatcher_arg_type(typed[0][0][0])
            if converted is None:
                return [({}, f"the fixture '{param}' gives {typed[0][0][0]}, a value Numba cannot pass on")]
            chosen[param] = converted
        return [(chosen, None)]

    def _fixture(self, path: str, name: str) -> tuple[Scope, ast.stmt] | None:
        directory = os.path.dirname(path)
        places = [path]
        while True:
            places.append(os.path.join(directory, "conftest.py"))
            if directory == self.index.root or os.path.dirname(directory) == directory:
                break
            directory = os.path.dirname(directory)
        for place in places:
            indexed = self.index.files.get(os.path.realpath(place))
            node = indexed.top_level_defs.get(name) if indexed is not None else None
            if (
                indexed is None
                or node is None
                or not any("fixture" in ast.unparse(d) for d in node.decorator_list)
            ):
                continue
            last = node.body[-1]
            if isinstance(last, ast.Return) or (
                isinstance(last, ast.Expr) and isinstance(last.value, ast.Yield)
            ):
                scope = indexed.scopes.get(name)
                return (scope, last) if scope is not None else None
        return None
