"""Slicing a Python caller's AST (python_callers.py): its statements flattened with what each defines and
reads, the statements a call's arguments depend on, and the scoping facts that keep a slice honest.

AST only: nothing here imports, runs or types anything.
"""

from __future__ import annotations

import ast
import copy
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyserver import numba_api
from pyserver.analysis.worker.signatures.indexed_file import IndexedFile, Scope, ast_nodes


def names_read(node: ast.AST) -> set[str]:
    """Names an expression or statement reads, without comprehension and lambda variables."""
    read: set[str] = set()
    local: set[str] = set()
    for sub in ast_nodes(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            read.add(sub.id)
        elif isinstance(sub, ast.comprehension):
            local |= {n.id for n in ast_nodes(sub.target) if isinstance(n, ast.Name)}
        elif isinstance(sub, ast.Lambda):
            local |= {a.arg for a in ast_nodes(sub.args) if isinstance(a, ast.arg)}
    return read - local


def target_names(target: ast.expr) -> tuple[set[str], set[str]]:
    """(names bound, names mutated: bases of subscript/attribute stores)."""
    bound: set[str] = set()
    mutated: set[str] = set()
    if isinstance(target, ast.Name):
        bound.add(target.id)
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            b, m = target_names(element.value if isinstance(element, ast.Starred) else element)
            bound |= b
            mutated |= m
    elif isinstance(target, ast.Subscript | ast.Attribute):
        base: ast.expr = target
        while isinstance(base, ast.Subscript | ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name):
            mutated.add(base.id)
    return bound, mutated


@dataclass
class Simple:
    """A statement of the slice (or a `for` header) with what it defines and reads."""

    node: ast.stmt
    defines: set[str]
    reads: set[str]
    position: tuple[int, int]
    loops: tuple[int, ...]  # ids of the loops that enclose it
    opaque: set[str] = field(default_factory=set)  # names it binds to values the slice cannot type
    why: str = "gets a value Numba cannot follow"  # said of an opaque name
    header: bool = False  # a `for` header: defines its target from its iterable


def walrus_targets(node: ast.AST) -> set[str]:
    return {n.target.id for n in ast_nodes(node) if isinstance(n, ast.NamedExpr)}


def flatten(
    body: list[ast.stmt],
    loops: tuple[int, ...],
    out: list[Simple],
    jitted: frozenset[str] = frozenset(),
    walrus: bool = True,
    loaded: frozenset[str] = frozenset(),
) -> None:
    """`jitted`: names of the module's jitted functions and jitclasses: globals the slice may call, not
    opaque.
    `walrus`: the file may hold an assignment expression (else no statement is searched for one).
    `loaded`: names a module-level jit call binds (`fast = njit(slow)`), read from the loaded module: the
    call is not part of any slice."""
    for stmt in body:
        position = (stmt.lineno, stmt.col_offset)
        if (
            isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and not loops
            and stmt.name in jitted
        ):
            continue
        if (
            loaded
            and not loops
            and isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id in loaded
        ):
            continue
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            what = "a class" if isinstance(stmt, ast.ClassDef) else "a Python function"
            why = f"is {what}, which Numba cannot type"
            out.append(Simple(stmt, set(), set(), position, loops, opaque={stmt.name}, why=why))
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            continue  # imports bind globals of the synthetic function (see _globals)
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            inner = (*loops, id(stmt))
            bound, mutated = target_names(stmt.target)
            out.append(Simple(stmt, bound | mutated, names_read(stmt.iter), position, inner, header=True))
            flatten(stmt.body, inner, out, jitted, walrus, loaded)
            flatten(stmt.orelse, loops, out, jitted, walrus, loaded)
        elif isinstance(stmt, ast.While):
            inner = (*loops, id(stmt))
            out.append(
                Simple(
                    stmt, set(), set(), position, inner, opaque=walrus_targets(stmt.test) if walrus else set()
                )
            )
            flatten(stmt.body, inner, out, jitted, walrus, loaded)
            flatten(stmt.orelse, loops, out, jitted, walrus, loaded)
        elif isinstance(stmt, ast.If):
            out.append(
                Simple(
                    stmt, set(), set(), position, loops, opaque=walrus_targets(stmt.test) if walrus else set()
                )
            )
            flatten(stmt.body, loops, out, jitted, walrus, loaded)
            flatten(stmt.orelse, loops, out, jitted, walrus, loaded)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            opaque: set[str] = set()
            for item in stmt.items:
                if item.optional_vars is not None:
                    bound, mutated = target_names(item.optional_vars)
                    opaque |= bound | mutated
            out.append(Simple(stmt, set(), set(), position, loops, opaque=opaque))
            flatten(stmt.body, loops, out, jitted, walrus, loaded)
        elif isinstance(stmt, ast.Try):
            flatten(stmt.body, loops, out, jitted, walrus, loaded)
            for handler in stmt.handlers:
                if handler.name:
                    out.append(Simple(handler, set(), set(), position, loops, opaque={handler.name}))  # type: ignore[arg-type]
                flatten(handler.body, loops, out, jitted, walrus, loaded)
            flatten(stmt.orelse, loops, out, jitted, walrus, loaded)
            flatten(stmt.finalbody, loops, out, jitted, walrus, loaded)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                flatten(case.body, loops, out, jitted, walrus, loaded)
        else:
            defines: set[str] = set()
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    bound, mutated = target_names(target)
                    defines |= bound | mutated
            elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
                bound, mutated = target_names(stmt.target)
                defines |= bound | mutated
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                func = stmt.value.func
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                    defines.add(func.value.id)  # `values.append(x)` may change what `values` holds
            elif isinstance(stmt, ast.Delete):
                for target in stmt.targets:
                    bound, mutated = target_names(target)
                    defines |= mutated
            reads = names_read(stmt)
            opaque = walrus_targets(stmt) if walrus else set()
            if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    if isinstance(target, ast.Attribute):  # `a.shape = ...` may change an array's type
                        opaque |= target_names(target)[1]
                    if isinstance(target, ast.Tuple | ast.List) and any(
                        isinstance(e, ast.Starred) for e in target.elts
                    ):
                        opaque |= target_names(target)[0]
            out.append(Simple(stmt, defines, reads, position, loops, opaque=opaque))


def find_anchor(body: list[ast.stmt], call: ast.Call) -> ast.stmt | None:
    """The statement of `body` (at any depth, outside nested scopes) whose own expressions hold `call`:
    its probes go just before it."""
    for stmt in body:
        if not (stmt.lineno <= call.lineno <= (stmt.end_lineno or stmt.lineno)):
            continue
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return None
        inner_bodies: list[list[ast.stmt]] = []
        for name in ("body", "orelse", "finalbody"):
            value = getattr(stmt, name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                inner_bodies.append(value)
        for handler in getattr(stmt, "handlers", []) or []:
            inner_bodies.append(handler.body)
        for case in getattr(stmt, "cases", []) or []:
            inner_bodies.append(case.body)
        for inner in inner_bodies:
            found = find_anchor(inner, call)
            if found is not None:
                return found
        if any(sub is call for sub in ast_nodes(stmt)):
            return stmt
    return None


def constant_default(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Tuple):
        return all(constant_default(e) for e in node.elts)
    return False


def close(candidates: list[Simple], needed: set[str], kept: set[int]) -> None:
    """Keep the candidates that define a needed name, and need what they read, until nothing changes."""
    changed = True
    while changed:
        changed = False
        for s in candidates:
            if (s.defines | s.opaque) & needed:
                if id(s.node) not in kept:
                    kept.add(id(s.node))
                    changed = True
                if not s.reads <= needed:
                    needed |= s.reads
                    changed = True


def close_by_name(by_name: dict[str, list[Simple]], needed: set[str], kept: set[int]) -> None:
    """`close` over candidates given by the names they bind (defines or opaque): the same fixpoint,
    reached by following names instead of scanning every candidate until nothing changes."""
    pending = list(needed)
    while pending:
        for s in by_name.get(pending.pop(), ()):
            kept.add(id(s.node))
            for name in s.reads:
                if name not in needed:
                    needed.add(name)
                    pending.append(name)


INNER_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def scopes_around(anchor: ast.stmt, call: ast.Call) -> list[ast.AST]:
    """The lambdas and comprehensions of `anchor` that hold `call`, outermost first."""
    return [
        n for n in ast_nodes(anchor) if isinstance(n, INNER_SCOPES) and any(s is call for s in ast_nodes(n))
    ]


def inner_scope_failure(
    scope: ast.AST,
    around: list[ast.AST],
    call: ast.Call,
    rewrite: Callable[[ast.expr], ast.expr] | None,
) -> str | None:
    """Why the arguments of a call inside the lambdas and comprehensions `around` it (scopes_around, not
    empty) cannot be typed where their statement stands; None if they can. They can when they read none of
    the inner scopes' own names (a comprehension runs within its statement) or `rewrite` (see
    comprehension_rewrite) reads them as items; and, where the call may run later (in a lambda:
    `timeit.timeit(lambda: kernel(a))`, or a generator expression), when nothing after it in `scope`
    assigns the names it reads or calls a method of them."""
    own: set[str] = set()
    for node in around:
        for sub in ast_nodes(node.args if isinstance(node, ast.Lambda) else node):
            if isinstance(sub, ast.arg):
                own.add(sub.arg)
            elif isinstance(sub, ast.comprehension):
                own |= {n.id for n in ast_nodes(sub.target) if isinstance(n, ast.Name)}
            elif isinstance(sub, ast.NamedExpr):
                own.add(sub.target.id)
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if rewrite is not None:
        arguments, own = [rewrite(a) for a in arguments], set()
    reads = set().union(*(names_read(a) for a in arguments))
    if reads & own:
        return (
            f"the call reads '{sorted(reads & own)[0]}', a variable of the comprehension or lambda around it"
        )
    lambdas = [n for n in around if isinstance(n, ast.Lambda | ast.GeneratorExp)]
    if not lambdas:
        return None
    inside = {id(n) for n in ast_nodes(lambdas[0])}
    after = (lambdas[0].end_lineno or lambdas[0].lineno, lambdas[0].end_col_offset or 0)
    for later in ast_nodes(scope):
        if id(later) in inside or (getattr(later, "lineno", 0), getattr(later, "col_offset", 0)) < after:
            continue
        changed = None
        if isinstance(later, ast.Name) and not isinstance(later.ctx, ast.Load):
            changed = later.id
        elif isinstance(later, ast.Call) and isinstance(later.func, ast.Attribute):
            receiver = later.func.value
            changed = receiver.id if isinstance(receiver, ast.Name) else None
        if changed in reads:
            what = "a lambda" if isinstance(lambdas[0], ast.Lambda) else "a generator expression"
            return (
                f"the call is in {what}, which may run after '{changed}' changes "
                f"(line {getattr(later, 'lineno', '?')})"
            )
    return None


# Names a rewritten probe calls for the builtins (the file may bind `iter` or `next` itself):
# python_callers resolves them to the builtins.
ITER, NEXT = "__lens_iter__", "__lens_next__"


def comprehension_rewrite(around: list[ast.AST], call: ast.Call) -> Callable[[ast.expr], ast.expr] | None:
    """For a call in the element of the comprehensions `around` it (`[kernel(n) for n in sizes]`): a rewrite of an
    argument that reads each comprehension variable as an item of its iterable, `next(iter(sizes))`
    (items of tuple targets by index), so that it types as the variable does in the loop. None where the
    call is not in comprehensions' elements only, or where a lambda, `:=`, `async` or a target other
    than names is involved."""
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if any(isinstance(sub, INNER_SCOPES) for a in arguments for sub in ast_nodes(a)):
        return None  # an argument with scopes of its own, which may bind the same names
    mapping: dict[str, ast.expr] = {}
    for node in around:
        if not isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            return None
        if any(isinstance(sub, ast.NamedExpr | ast.Lambda) for sub in ast_nodes(node)):
            return None
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        if not any(sub is call for element in elements for sub in ast_nodes(element)):
            return None  # in an iterable or a condition: evaluated at another moment
        for generator in node.generators:
            if generator.is_async:
                return None
            item = ast.Call(
                ast.Name(NEXT, ast.Load()),
                [ast.Call(ast.Name(ITER, ast.Load()), [_substituted(generator.iter, mapping)], [])],
                [],
            )
            if not _bind(generator.target, item, mapping):
                return None
    if not mapping:
        return None  # not in a comprehension: the arguments are read as they are
    return lambda argument: _substituted(argument, mapping)


def _bind(target: ast.expr, item: ast.expr, mapping: dict[str, ast.expr]) -> bool:
    if isinstance(target, ast.Name):
        mapping[target.id] = item
        return True
    if isinstance(target, ast.Tuple | ast.List):
        return all(
            _bind(element, ast.Subscript(item, ast.Constant(index), ast.Load()), mapping)
            for index, element in enumerate(target.elts)
        )
    return False  # a starred, attribute or subscript target


def _substituted(expression: ast.expr, mapping: dict[str, ast.expr]) -> ast.expr:
    """A copy of `expression` with the names in `mapping` replaced by (copies of) their expressions."""

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            found = mapping.get(node.id)
            return copy.deepcopy(found) if found is not None and isinstance(node.ctx, ast.Load) else node

    return Substitute().visit(copy.deepcopy(expression))  # type: ignore[no-any-return]


def enclosing_names(indexed: IndexedFile, scope: Scope) -> set[str]:
    """Names the functions around a nested function bind (parameters and assignments)."""
    names: set[str] = set()
    parts = scope.qualname.split(".<locals>.")
    for depth in range(1, len(parts)):
        outer = indexed.scopes.get(".<locals>.".join(parts[:depth]))
        if outer is None or isinstance(outer.node, ast.Module):
            continue
        for node in ast_nodes(outer.node):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and node is not outer.node
            ):
                names.add(node.name)
            elif isinstance(node, ast.alias):
                names.add((node.asname or node.name).split(".")[0])
    return names


def is_test(scope: Scope) -> bool:
    """A pytest test function: `test*` in test_*.py, *_test.py or a tests/ folder."""
    name = os.path.basename(scope.path)
    in_tests = name.startswith("test_") or name.endswith("_test.py") or "tests" in scope.path.split(os.sep)
    return in_tests and scope.qualname.startswith("test")


def resolved_global(node: ast.expr, values: dict[str, object]) -> object | None:
    """The object a name or a dotted name denotes among a slice's globals, through module dictionaries
    only (a module's own __getattr__ could run code)."""
    if isinstance(node, ast.Name):
        return values.get(node.id)
    if isinstance(node, ast.Attribute):
        base = resolved_global(node.value, values)
        if isinstance(base, type(os)):
            return vars(base).get(node.attr)
    return None


def substitute_stand_ins(
    function: ast.FunctionDef,
    source: str,
    values: dict[str, object],
    stand_ins: dict[int, tuple[str, str, object]],
) -> tuple[ast.FunctionDef, dict[str, object]]:
    """The slice with each call of a function in `stand_ins` (by id: (its own name, the slice's name for
    the stand-in, the stand-in)) calling the stand-in instead, and the globals to add. `source` is the
    slice's text: one that names none of them (nearly all) is returned as it is. The AST shared with
    the parsed file is never changed: the slice is copied first."""
    if not any(own in source for own, _name, _stand_in in stand_ins.values()):
        return function, {}
    changed = copy.deepcopy(function)
    added: dict[str, object] = {}
    for node in ast.walk(changed):
        if isinstance(node, ast.Call):
            found = stand_ins.get(id(resolved_global(node.func, values)))
            if found is not None:
                _own, name, stand_in = found
                node.func = ast.Name(id=name, ctx=ast.Load())
                added[name] = stand_in
    return (changed, added) if added else (function, {})


def bind_call(scope: Scope, positional: list[Any], keywords: dict[str, Any]) -> dict[str, Any] | str:
    """Parameter -> type for a call of a Python function (defaults that are constants included)."""
    node = scope.node
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    names = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
    if len(positional) > len(names):
        return f"'{scope.qualname}' is called with more arguments than it has parameters"
    bound: dict[str, Any] = dict(zip(names, positional, strict=False))
    for key, value in keywords.items():
        bound[key] = value
    for param in scope.params:
        if param not in bound:
            default = scope.defaults.get(param)
            if default is None or not constant_default(default):
                return f"'{scope.qualname}' leaves '{param}' to a default that is not a constant"
            value = numba_api.constant_type(ast.literal_eval(default))
            if value is None:
                return f"the default of '{param}' has no Numba type"
            bound[param] = value
    return bound
