"""Text edits on the current buffer (0-based lines, code-point columns) and the source helpers the quick
fixes share: where an import goes, how the module spells numpy and numba, a node's range."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pyserver.analysis.api import JitFunction
from pyserver.lsp.syntax import function_node
from pyserver.lsp.text import utf8_to_index
from pyserver.lsp.views import discover


@dataclass(frozen=True)
class Edit:
    line: int  # 0-based
    col: int  # code points
    end_line: int
    end_col: int
    new_text: str


@dataclass
class Fix:
    title: str
    edits: list[Edit]
    preferred: bool = False


def code_point_col(lines: list[str], line1: int, byte_col: int) -> int:
    return utf8_to_index(lines[line1 - 1] if 0 < line1 <= len(lines) else "", byte_col)


def node_edit(lines: list[str], node: ast.AST, new_text: str) -> Edit:
    line1 = node.lineno  # type: ignore[attr-defined]
    end1 = node.end_lineno or line1  # type: ignore[attr-defined]
    return Edit(
        line1 - 1,
        code_point_col(lines, line1, node.col_offset),  # type: ignore[attr-defined]
        end1 - 1,
        code_point_col(lines, end1, node.end_col_offset or 0),  # type: ignore[attr-defined]
        new_text,
    )


def module_alias(tree: ast.Module, module: str) -> str | None:
    """The local name bound to `import module [as alias]` at the top level, if any."""
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == module:
                    return alias.asname or module
    return None


def import_edit(tree: ast.Module, lines: list[str], statement: str) -> Edit:
    """Insert `statement` after the module's last top-level import (or after its docstring)."""
    after = 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            after = node.end_lineno or node.lineno
        elif after == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            after = node.end_lineno or node.lineno  # the docstring
        elif after:
            break
    return Edit(after, 0, after, 0, statement + "\n")


def numba_name(tree: ast.Module, lines: list[str], name: str) -> tuple[str, list[Edit]]:
    """How this module spells `numba.<name>` (e.g. `njit` or `numba.njit`), and the import edit if none."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "numba" and node.level == 0:
            for alias in node.names:
                if alias.name == name:
                    return alias.asname or name, []
    numba_alias = module_alias(tree, "numba")
    if numba_alias is not None:
        return f"{numba_alias}.{name}", []
    return name, [import_edit(tree, lines, f"from numba import {name}")]


def jit_function(source: str, name: str) -> JitFunction | None:
    return next((f for f in discover(source) if f.name == name), None)


def decorator_node(source: str, function: JitFunction) -> ast.expr | None:
    node = function_node(source, function.def_line)
    if node is None:
        return None
    return next((d for d in node.decorator_list if d.lineno == function.decorator_line), None)
