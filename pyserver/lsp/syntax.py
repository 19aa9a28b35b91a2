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

from pyserver.analysis.discovery import JitFunction
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


@lru_cache(maxsize=64)
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
