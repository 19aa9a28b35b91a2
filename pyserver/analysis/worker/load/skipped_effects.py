"""Which top-level statements the analysis never ran a module's failure to load reads the effects of.

Definitions-only loading never runs a statement for its effects: `registry.register("numba", ...)` in a
package's `__init__` stays out of the slice. A module whose import then reads that registry (a library's
own `@jit` wrapper asking it for its options) raises, where a plain import would not. Such a failure is
not an error in the user's code, and the user learns which statements it needs.

A skipped statement counts when one of its calls acts on what the failing code held: its receiver
(`registry` of `registry.register(...)`) or one of its arguments is an object the failing code held (in
a local of a function on the traceback, or among the globals its innermost frame read), or the called
function belongs to a module whose functions the failure ran in. Names resolve in the statement's module as it loaded,
read statically (a plain dict read and `inspect.getattr_static`): nothing runs.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import traceback
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pyserver.analysis.model import SkippedStatement
from pyserver.analysis.worker.load import package_copy, toplevel_slice

_MAX_SHOWN = 5  # statements listed per failure: the first ones, by module and line
_NOT_STATE = (
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    int,
    float,
    complex,
    str,
    bytes,
    bool,
    tuple,
    frozenset,
    type(None),
)


@dataclass(frozen=True)
class SkippedEffect:
    """A top-level statement the analysis did not run that the failure may need."""

    path: str
    line: int  # 1-based
    end_line: int
    end_col: int  # the length of its last line
    text: str  # its first line, as written


@dataclass
class _Failure:
    """What the frames of a failure held."""

    held: set[int]  # ids of the objects the failing code held (_failure)
    globals_ids: set[int]  # ids of the global namespaces of the functions the failure ran in


def related(
    exc: BaseException,
    module: types.ModuleType | None,
    skipped: list[SkippedStatement],
    source: str,
    path: str,
) -> list[SkippedEffect]:
    """The statements left out of the failing module (`skipped`, of `source`) and of the workspace
    modules loaded before it whose effects the failure `exc` may have needed; [] when none."""
    failure = _failure(exc)
    found: list[SkippedEffect] = []
    for where, namespace, text, statements in _candidates(module, skipped, source, path):
        lines = text.splitlines()
        for statement in statements:
            if statement.reason == toplevel_slice.MAIN_BLOCK_REASON:
                continue  # a plain import does not run it either
            node = _parse(lines, statement)
            if node is not None and any(_acts_on(call, namespace, failure) for call in _calls(node)):
                first, last = lines[statement.line - 1], lines[statement.end_line - 1]
                found.append(
                    SkippedEffect(where, statement.line, statement.end_line, len(last), first.strip())
                )
    unique = {(f.path, f.line): f for f in found}
    return sorted(unique.values(), key=lambda f: (f.path, f.line))[:_MAX_SHOWN]


def _failure(exc: BaseException) -> _Failure:
    """What the failing code held: the locals of the functions on the traceback, and of its innermost
    frame even at a module's top level (where they are all the module's globals: only there); the
    instances among the innermost frame's globals (a registry a function reads by name)."""
    failure = _Failure(set(), set())
    frames = [frame for frame, _line in traceback.walk_tb(exc.__traceback__)]
    for index, frame in enumerate(frames):
        innermost = index == len(frames) - 1
        if frame.f_code.co_name == "<module>" and not innermost:
            continue
        failure.globals_ids.add(id(frame.f_globals))
        for value in frame.f_locals.values():
            if not isinstance(value, _NOT_STATE) and not _builtin_type(value):
                failure.held.add(id(value))
        if innermost:
            for value in frame.f_globals.values():
                if not isinstance(value, (*_NOT_STATE, type)):
                    failure.held.add(id(value))
    return failure


def _builtin_type(value: Any) -> bool:
    return isinstance(value, type) and value.__module__ == "builtins"


def _candidates(
    module: types.ModuleType | None, skipped: list[SkippedStatement], source: str, path: str
) -> Iterator[tuple[str, dict[str, Any], str, list[SkippedStatement]]]:
    """(path, namespace, text, skipped statements) of the failing module and of every workspace module
    imported definitions-only so far."""
    if module is not None:
        yield path, vars(module), source, skipped
    for other in list(sys.modules.values()):
        if type(other) is not types.ModuleType:
            continue  # a lazy module or a proxy: reading it may import, or raise; workspace modules are plain
        ran = package_copy.ran(other)
        if other is module or ran is None or ran.sliced is None or not ran.sliced.skipped:
            continue
        yield ran.path, vars(other), ran.text, ran.sliced.skipped


def _parse(lines: list[str], statement: SkippedStatement) -> ast.stmt | None:
    """The statement's syntax tree, from its own lines (an `if`'s branch is indented: dedented first)."""
    if not 0 < statement.line <= statement.end_line <= len(lines):
        return None
    text = textwrap.dedent("\n".join(lines[statement.line - 1 : statement.end_line]))
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None  # a piece that does not stand alone (`else:` of a kept `if`)
    return body[0] if len(body) == 1 else None


def _calls(node: ast.AST) -> Iterator[ast.Call]:
    """The calls the statement makes when it runs: not those inside the functions it defines."""
    pending = [node]
    while pending:
        inner = pending.pop()
        if isinstance(inner, ast.Call):
            yield inner
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
            pending += inner.decorator_list + inner.args.defaults + [d for d in inner.args.kw_defaults if d]
        elif not isinstance(inner, ast.Lambda):
            pending.extend(ast.iter_child_nodes(inner))


def _acts_on(call: ast.Call, namespace: dict[str, Any], failure: _Failure) -> bool:
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if any(id(value) in failure.held for value in _values(arguments, namespace)):
        return True
    if isinstance(call.func, ast.Attribute):
        receiver = _static_value(call.func.value, namespace)
        if receiver is not _MISSING and id(receiver) in failure.held:
            return True
    callee = _static_value(call.func, namespace)
    called = getattr(callee, "__func__", callee)  # a bound or class method: its function
    return isinstance(called, types.FunctionType) and id(called.__globals__) in failure.globals_ids


def _values(nodes: list[ast.expr], namespace: dict[str, Any]) -> Iterator[Any]:
    for node in nodes:
        value = _static_value(node, namespace)
        if value is not _MISSING:
            yield value


_MISSING = object()


def _static_value(node: ast.expr, namespace: dict[str, Any]) -> Any:
    """The value of a name or dotted name in the module's namespace, read without running code."""
    if isinstance(node, ast.Name):
        return namespace.get(node.id, _MISSING)
    if isinstance(node, ast.Attribute):
        owner = _static_value(node.value, namespace)
        if owner is _MISSING:
            return _MISSING
        try:
            found = inspect.getattr_static(owner, node.attr)
        except AttributeError:
            return _MISSING
        if isinstance(found, staticmethod | classmethod):
            return found.__func__
        return found
    return _MISSING
