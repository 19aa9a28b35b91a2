"""Where names sit in a jitted function's source: which occurrence is a parameter, an assignment
target or a use. Hover and inlay hints need this because Numba reports lines, not columns, and an
assignment like `x = x + 1.0` holds two versions of `x` on one line."""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pyserver.analysis.api import OVERLOAD_KINDS, JitFunction
from pyserver.lsp.text import utf8_to_index
from pyserver.lsp.views import cached_lines, parse_module

Role = Literal["param", "store", "load", "function"]
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True)
class NameAt:
    name: str
    line: int  # 1-based
    col: int  # 0-based code points
    end_col: int
    role: Role
    annotated: bool = False  # an annotated assignment or parameter (inlay hints skip those)
    augmented: bool = False  # the target of `x += ...`


def function_node(source: str, def_line: int) -> FunctionNode | None:
    tree = parse_module(source)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno == def_line:
            return node
    return None


class _Collector(ast.NodeVisitor):
    """Names of one function's own scope: nested functions, lambdas and comprehension variables
    live in other scopes (Numba inlines them under other IR names), so they are left out."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.found: list[NameAt] = []
        self.hidden: list[set[str]] = []  # comprehension targets in scope

    def _span(self, node: ast.AST, name: str) -> tuple[int, int, int]:
        line = node.lineno  # type: ignore[attr-defined]
        text = self.lines[line - 1] if line - 1 < len(self.lines) else ""
        col = utf8_to_index(text, node.col_offset)  # type: ignore[attr-defined]
        return line, col, col + len(name)

    def add(
        self, node: ast.AST, name: str, role: Role, annotated: bool = False, augmented: bool = False
    ) -> None:
        if any(name in hidden for hidden in self.hidden):
            return
        line, col, end = self._span(node, name)
        self.found.append(NameAt(name, line, col, end, role, annotated, augmented))

    def visit_Name(self, node: ast.Name) -> None:
        self.add(node, node.id, "load" if isinstance(node.ctx, ast.Load) else "store")

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if isinstance(node.target, ast.Name):
            self.add(node.target, node.target.id, "store", annotated=True)
        else:
            self.visit(node.target)
        self.visit(node.annotation)
        if node.value is not None:
            self.visit(node.value)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self.add(node.target, node.target.id, "store", augmented=True)
        else:
            self.visit(node.target)
        self.visit(node.value)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        targets = {n.id for gen in node.generators for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
        # The first iterable is evaluated in the enclosing scope.
        if node.generators:
            self.visit(node.generators[0].iter)
        self.hidden.append(targets)
        for index, gen in enumerate(node.generators):
            if index:
                self.visit(gen.iter)
            for condition in gen.ifs:
                self.visit(condition)
        if isinstance(node, ast.DictComp):
            self.visit(node.key)
            self.visit(node.value)
        else:
            self.visit(node.elt)
        self.hidden.pop()

    visit_ListComp = _comprehension
    visit_SetComp = _comprehension
    visit_GeneratorExp = _comprehension
    visit_DictComp = _comprehension

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        return  # a nested function: another scope

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        return

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        return


@lru_cache(maxsize=32)
def _names(source: str, def_line: int) -> tuple[NameAt, ...]:
    node = function_node(source, def_line)
    if node is None:
        return ()
    lines = cached_lines(source)
    collector = _Collector(lines)
    arguments = node.args
    for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
        collector.add(arg, arg.arg, "param", annotated=arg.annotation is not None)
    for extra in (arguments.vararg, arguments.kwarg):
        if extra is not None:
            collector.add(extra, extra.arg, "param", annotated=extra.annotation is not None)
    for statement in node.body:
        collector.visit(statement)
    return tuple(collector.found)


def names_in(source: str, function: JitFunction) -> tuple[NameAt, ...]:
    if function.kind in OVERLOAD_KINDS:
        # Its types are those of the implementations it returns (pyserver.analysis.worker.infer.kernels): their names too.
        node = function_node(source, function.def_line)
        inner = (
            [n for n in ast.walk(node) if n is not node and isinstance(n, ast.FunctionDef)] if node else []
        )
        return _names(source, function.def_line) + tuple(n for d in inner for n in _names(source, d.lineno))
    return _names(source, function.def_line)


def name_at(source: str, function: JitFunction, line: int, col: int) -> NameAt | None:
    """The name occurrence under the cursor (1-based line, 0-based code-point column)."""
    if line == function.def_line:
        start = function.name_col
        short = function.name.rsplit(".", 1)[-1]
        if start <= col <= start + len(short):
            return NameAt(short, line, start, start + len(short), "function")
    for occurrence in names_in(source, function):
        if occurrence.line == line and occurrence.col <= col <= occurrence.end_col:
            return occurrence
    return None


def header_end(source: str, function: JitFunction) -> tuple[int, int, bool] | None:
    """Where a return-type hint goes: just after the `)` closing the parameter list, as (1-based
    line, 0-based column), and whether a return annotation is already written."""
    node = function_node(source, function.def_line)
    if node is None:
        return None
    lines = cached_lines(source)
    body_line = node.body[0].lineno if node.body else node.lineno
    header = "\n".join(lines[node.lineno - 1 : body_line])
    depth = 0
    seen_open = False
    try:
        for token in tokenize.generate_tokens(io.StringIO(header + "\n").readline):
            if token.type != tokenize.OP:
                continue
            if token.string == "(":
                depth += 1
                seen_open = True
            elif token.string == ")":
                depth -= 1
                if seen_open and depth == 0:
                    line = node.lineno + token.end[0] - 1
                    return line, token.end[1], node.returns is not None
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return None


# --- which assignment reaches a use ---------------------------------------------------------------
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _stores(node: ast.AST, name: str) -> list[ast.AST]:
    """Nodes inside `node` (same scope) that bind `name`."""
    found: list[ast.AST] = []

    def visit(current: ast.AST) -> None:
        if isinstance(current, _SCOPES) and current is not node:
            return
        if isinstance(current, _COMPREHENSIONS):
            return  # comprehension targets are their own scope; Numba inlines them under other names
        if isinstance(current, ast.Name) and current.id == name and not isinstance(current.ctx, ast.Load):
            found.append(current)
        elif isinstance(current, ast.NamedExpr) and current.target.id == name:
            found.append(current.target)
        for child in ast.iter_child_nodes(current):
            visit(child)

    visit(node)
    return found


def _parents(function: FunctionNode) -> dict[int, ast.AST]:
    parents: dict[int, ast.AST] = {}
    for parent in ast.walk(function):
        for child in ast.iter_child_nodes(parent):
            parents[id(child)] = parent
    return parents


def _bodies(node: ast.AST) -> list[list[ast.stmt]]:
    bodies = []
    for field_name in ("body", "orelse", "finalbody"):
        value = getattr(node, field_name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            bodies.append(value)
    for handler in getattr(node, "handlers", []) or []:
        bodies.append(handler.body)
    for case in getattr(node, "cases", []) or []:
        bodies.append(case.body)
    return bodies


_SIMPLE_STORES = (ast.Assign, ast.AugAssign, ast.AnnAssign)
_TRIES: tuple[type, ...] = tuple(t for t in (ast.Try, vars(ast).get("TryStar")) if isinstance(t, type))


def reaching_store(source: str, function: JitFunction, use: NameAt) -> NameAt | None:
    """The one assignment (or parameter) whose value a use of a name reads on every path, when the
    code's structure makes that certain (straight-line code, no re-assignment in an enclosing loop);
    None when several can reach it or the structure is not simple enough to be sure."""
    node = function_node(source, function.def_line)
    if node is None or use.role != "load":
        return None
    lines = cached_lines(source)
    target: ast.Name | None = None
    for candidate in ast.walk(node):
        if isinstance(candidate, ast.Name) and candidate.id == use.name and candidate.lineno == use.line:
            text = lines[candidate.lineno - 1] if candidate.lineno - 1 < len(lines) else ""
            if utf8_to_index(text, candidate.col_offset) == use.col and isinstance(candidate.ctx, ast.Load):
                target = candidate
                break
    if target is None:
        return None
    parents = _parents(node)
    name = use.name
    current: ast.AST = target
    while not isinstance(current, ast.stmt):
        parent = parents.get(id(current))
        if parent is None:
            return None
        current = parent
    statement: ast.AST = current
    # A use in a loop header that the loop body re-assigns reads either value.
    if isinstance(statement, (ast.While, ast.For, ast.AsyncFor)) and any(
        _stores(body_stmt, name) for body in _bodies(statement) for body_stmt in body
    ):
        return None
    while True:
        parent = parents.get(id(statement))
        if parent is None:
            return None
        body = next((b for b in _bodies(parent) if any(s is statement for s in b)), None)
        if body is None:
            return None
        index = next(i for i, s in enumerate(body) if s is statement)
        for sibling in reversed(body[:index]):
            stores = _stores(sibling, name)
            if not stores:
                continue
            if isinstance(sibling, _SIMPLE_STORES) and all(
                isinstance(s, ast.Name) and s.lineno == sibling.lineno for s in stores
            ):
                store = stores[-1]
                assert isinstance(store, ast.Name)
                return next(
                    (
                        n
                        for n in names_in(source, function)
                        if n.role == "store" and n.line == store.lineno and n.name == name
                    ),
                    None,
                )
            return None  # bound inside a compound statement (a branch, a loop): maybe, maybe not
        if parent is node:
            if name in function.params:
                return next(
                    (n for n in names_in(source, function) if n.role == "param" and n.name == name), None
                )
            return None
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)):
            loop_stores = [s for b in _bodies(parent) for st in b for s in _stores(st, name)]
            if loop_stores:
                return None  # the previous iteration's value can reach the use
            if isinstance(parent, (ast.For, ast.AsyncFor)) and _stores(parent.target, name):
                return next(
                    (
                        n
                        for n in names_in(source, function)
                        if n.role == "store" and n.line == parent.target.lineno and n.name == name
                    ),
                    None,
                )
        if isinstance(parent, _TRIES):
            if _stores(parent, name):
                return None
        statement = parent
