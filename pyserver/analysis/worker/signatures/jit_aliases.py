"""Module-level names that a Numba decorator call made from a function (`fast = jit(nopython=True)(slow)`,
`fast = numba.njit(slow)`), from the AST only: calling such a name compiles that function."""

from __future__ import annotations

import ast

from pyserver.analysis.worker.discover.discovery import ImportNames, jitclass_calls
from pyserver.analysis.worker.discover.makes_jitted import is_shim_builder
from pyserver.analysis.worker.load import names

_NUMBA_JITS = ("jit", "njit")


def _is_numba_jit(node: ast.expr, imports: dict[str, tuple[str, int, str | None]]) -> bool:
    """`jit`, `njit`, `numba.njit`, `nb.jit` (imported from numba, or from a package's jit shim: `from
    .compat import jit`), or a call of one (`jit(nopython=True)`)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        found = imports.get(node.id)
        return (
            found is not None
            and found[2] in _NUMBA_JITS
            and (found[0] == "numba" or is_shim_builder(found[0], found[1], found[2]))
        )
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in _NUMBA_JITS:
        return imports.get(node.value.id) == ("numba", 0, None)
    return False


def jitclass_made(tree: ast.Module) -> dict[str, tuple[str, ...]]:
    """The top-level classes that a module-level jitclass call makes a jitclass of, with the names it binds
    them to (`Point = jitclass(spec)(Point)`, `PointJ = jitclass(Point, spec)`): as jit_made for functions."""
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    made: dict[str, tuple[str, ...]] = {}
    for cls, bound, _call, _spec in jitclass_calls(tree.body, ImportNames(tree)):
        if bound is not None and cls in classes and bound not in made.get(cls, ()):
            made[cls] = (*made.get(cls, ()), bound)
    return made


def loaded_jit_names(tree: ast.Module, made: dict[str, tuple[str, ...]]) -> frozenset[str]:
    """The names module-level jit calls bind (`fast = njit(slow)`, `Point = jitclass(spec)(Point)`), each
    bound by no other top-level statement: the loaded module holds what the call made under it, which the
    analysis reads instead of making it again."""
    assigned: dict[str, int] = {}
    defined_after: set[str] = set()  # a `def`/`class` of the name after its jit call binds it again
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name in assigned:
                defined_after.add(node.name)
            continue  # what the call wraps (`Point = jitclass(spec)(Point)`)
        for name in names.bound_names(node):
            assigned[name] = assigned.get(name, 0) + 1
    return frozenset(
        n for bound in made.values() for n in bound if assigned.get(n) == 1 and n not in defined_after
    )


def jit_aliases(
    tree: ast.Module,
    made: dict[str, tuple[str, ...]],
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> dict[str, str]:
    """Module-level `fast = jit(...)(slow)` / `fast = njit(slow)`: fast -> slow, for a function that
    has exactly one dispatcher made this way (`made`: jit_made) and a name assigned once (a parallel and a
    serial dispatcher over one function are two dispatchers: neither gets the other's calls)."""
    assigned: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        assigned[name.id] = assigned.get(name.id, 0) + 1
    return {
        names[0]: function
        for function, names in made.items()
        if len(names) == 1 and assigned.get(names[0]) == 1 and names[0] not in defs and names[0] != function
    }


def jit_made(
    tree: ast.Module,
    imports: dict[str, tuple[str, int, str | None]],
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> dict[str, tuple[str, ...]]:
    """The top-level functions that a module-level jit call makes a dispatcher of, with the names it
    binds them to, any number of them (twins: `f_par = njit(f, parallel=True)`, `f_ser = njit(f)`): a
    call of such a function's own name runs Python and compiles nothing, unless the function's own name
    is one of them (`f = njit(f)`, jitted under its own name as a decorator would)."""
    made: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        pair = _made_from(node, imports, defs)
        if pair is not None and pair[0] not in made.get(pair[1], ()):
            made[pair[1]] = (*made.get(pair[1], ()), pair[0])
    return made


def redefinitions(tree: ast.Module) -> dict[str, list[tuple[int, int]]]:
    """A top-level function's name that the module binds again at the top level (a notebook's cells
    define `foo` twice): name -> (first line, decorators included, last line) of each statement that binds
    it, in order. The module's own code between two of them calls the first; what runs later, the last."""
    binders: dict[str, list[tuple[int, int]]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            binders.setdefault(node.name, []).append((first, node.end_lineno or node.lineno))
            continue
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign) and not _wraps_itself(node):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                    binders.setdefault(name.id, []).append((node.lineno, node.end_lineno or node.lineno))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    return {name: spans for name, spans in binders.items() if name in defined and len(spans) > 1}


def _wraps_itself(node: ast.Assign) -> bool:
    """`f = njit(f)`, `f = wrap(f, cache=True)`: the name keeps its function, wrapped (not a definition of
    another function)."""
    value = node.value
    names = {t.id for t in node.targets if isinstance(t, ast.Name)}
    while isinstance(value, ast.Call):
        if any(isinstance(a, ast.Name) and a.id in names for a in value.args):
            return True
        value = value.func  # `jit(nopython=True)(f)`: the inner call holds the options
    return False


def jit_alias_spans(
    tree: ast.Module,
    imports: dict[str, tuple[str, int, str | None]],
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> dict[str, list[tuple[int, int, str]]]:
    """A module-level name bound in turn to dispatchers of several functions (Numba's ctypes example:
    `cfunc = jit(nopython=True)(use_c_sin)`, `print(cfunc(pi))`, then `cfunc = jit(...)(use_ctype_wrapping)`):
    name -> (first line, last line, function) of each stretch of the module's own code in which the name
    holds one, from the statement after the assignment to the next statement that binds the name again.
    Only the module's top-level code runs in that order: a function's body may run at any time."""
    binders: dict[str, list[tuple[ast.stmt, tuple[str, str] | None]]] = {}
    for node in tree.body:
        bound = names.bound_names(node)  # a rebinding, or a change of its value, ends a stretch
        made = _made_from(node, imports, defs)
        for name in bound:
            binders.setdefault(name, []).append((node, made if made and made[0] == name else None))
    spans: dict[str, list[tuple[int, int, str]]] = {}
    for name, bindings in binders.items():
        if len(bindings) < 2 or name in defs:
            continue
        for position, (node, made) in enumerate(bindings):
            if made is None:
                continue
            start = (node.end_lineno or node.lineno) + 1
            end = bindings[position + 1][0].lineno - 1 if position + 1 < len(bindings) else 1 << 30
            spans.setdefault(name, []).append((start, end, made[1]))
    return spans


def _made_from(
    node: ast.stmt,
    imports: dict[str, tuple[str, int, str | None]],
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> tuple[str, str] | None:
    """(name, function) for `name = jit(...)(function)` / `name = njit(function, cache=True)`, else None."""
    if not (
        isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
    ):
        return None
    value = node.value
    if (
        isinstance(value, ast.Call)
        and len(value.args) == 1
        and (not value.keywords or not isinstance(value.func, ast.Call))  # the options: either call's
        and isinstance(value.args[0], ast.Name)
        and value.args[0].id in defs
        and _is_numba_jit(value.func, imports)
    ):
        return node.targets[0].id, value.args[0].id
    return None
