"""The module of a file's last definitions-only load, kept for its next load: after an edit that changed
only jitted functions' `def` statements (the usual edit of a notebook cell or of one function), only
those run again, in the module they ran in; every other kept statement keeps what it did.

That gives the module a fresh load gives when:
- the last load by this loader was of the same file, ran every kept statement and failed nowhere, no
  workspace module was imported afresh or forgotten since (the imports' values are the same), and
  nothing compiled its functions for real since (an IR view, object mode: compiled callees);
- the kept statements are the same, one for one, at the same places, but some `def`s (a statement is
  the same when its code is: module_codes compiles a statement again only when its text or place
  changed);
- each `def` run again is made by Numba's decorators alone (a decorator that registers the function
  somewhere would do that twice), calls nothing else when it runs (defaults, annotations), and its name
  is bound by no other kept statement;
- no other kept statement reads a name those `def`s bind when it runs, or calls anything when it runs
  but a decorator (a call may read what is outside the module: a file, the clock), so nothing that kept
  its value would get another now. Function bodies read names when called, never at load.
"""

from __future__ import annotations

import ast
import types
import weakref
from dataclasses import dataclass
from typing import Any

from pyserver.analysis.worker.load.names import bound_names, calls, definition_time, loads

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class LoadedDefinitions:
    """A definitions-only load that ran each kept statement (in order) and failed nowhere."""

    path: str
    module: types.ModuleType
    statements: tuple[ast.stmt, ...]
    codes: tuple[types.CodeType, ...]


def loaded(
    path: str, module: types.ModuleType, statements: list[ast.stmt], codes: list[tuple[Any, types.CodeType]]
) -> LoadedDefinitions:
    return LoadedDefinitions(path, module, tuple(statements), tuple(code for _, code in codes))


def _load_time(statement: ast.stmt) -> list[ast.AST]:
    if isinstance(statement, (*_DEFS, ast.ClassDef)):
        return definition_time(statement)
    return [statement]


def _numba_made(node: ast.FunctionDef | ast.AsyncFunctionDef, namespace: dict[str, Any]) -> bool:
    """Every decorator is one of Numba's (`njit`, `nb.jit(...)`, `cuda.jit`), as the module has them."""
    if not node.decorator_list:
        return False
    for decorator in node.decorator_list:
        expression = decorator.func if isinstance(decorator, ast.Call) else decorator
        attributes: list[str] = []
        while isinstance(expression, ast.Attribute):
            attributes.insert(0, expression.attr)
            expression = expression.value
        if not isinstance(expression, ast.Name) or expression.id not in namespace:
            return False
        value = namespace[expression.id]
        for attribute in attributes:
            value = getattr(value, attribute, None)
        owner = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
        if not isinstance(owner, str) or not (owner == "numba" or owner.startswith("numba.")):
            return False
    return True


def to_run_again(
    last: LoadedDefinitions | None, path: str, statements: list[ast.stmt], codes: list[types.CodeType]
) -> list[int] | None:
    """The positions of the kept statements to run again in `last.module`, or None when the module must
    be loaded afresh (see the module docstring)."""
    if last is None or last.path != path or len(codes) != len(last.codes) or len(statements) != len(codes):
        return None
    changed = [i for i, code in enumerate(codes) if code is not last.codes[i]]
    rerun: set[str] = set()
    for i in changed:
        statement, before = statements[i], last.statements[i]
        if not isinstance(statement, _DEFS) or not isinstance(before, _DEFS) or statement.name != before.name:
            return None
        if calls(definition_time(statement)) or not _numba_made(statement, last.module.__dict__):
            return None
        rerun.add(statement.name)
    changed_places = set(changed)
    for i, statement in enumerate(statements):
        if i in changed_places:
            continue
        bound, makes_calls, reads = _facts(statement)
        if bound & rerun:
            return None  # bound twice: which binding wins depends on running both
        if makes_calls or reads & rerun:
            return None
    return changed


def forget_unmade(
    recorded: dict[tuple[str, str], Any],
    last_recorded: dict[tuple[str, str], Any],
    statements: list[ast.stmt],
    again: list[int] | None,
) -> None:
    """A `def` run again (`statements[i]` for i in `again`) that Numba did not record this time keeps no
    record from the last load: a fresh load would have none."""
    rerun = [statements[i] for i in again or ()]
    names = {statement.name for statement in rerun if isinstance(statement, _DEFS)}
    for key, record in last_recorded.items():
        if key[1] in names and recorded.get(key) is record:
            del recorded[key]


# statement -> (names it binds, whether it calls anything but a decorator when it runs, names it reads
# then); a node is one text (incremental parsing keeps a statement's node only while its text is)
_FACTS: weakref.WeakKeyDictionary[ast.stmt, tuple[set[str], bool, set[str]]] = weakref.WeakKeyDictionary()


def _facts(statement: ast.stmt) -> tuple[set[str], bool, set[str]]:
    found = _FACTS.get(statement)
    if found is None:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            found = (bound_names(statement), False, set())
        else:
            at_load = _load_time(statement)
            found = (bound_names(statement), calls(at_load), loads(at_load))
        _FACTS[statement] = found
    return found
