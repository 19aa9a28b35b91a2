"""Where each function of a file is, for recorded types: every `def` and lambda wherever it stands, found
by a walk that enters expressions only when the text has a lambda."""

from __future__ import annotations

import ast

from pyserver.analysis.worker.infer.recorded_types import places

SOURCE = """
import numba

@numba.njit
def top(x):
    def inner(y):
        return y
    return inner(x)

class Holder:
    @staticmethod
    def method(a):
        return a

if numba:
    def in_if(): pass
try:
    def in_try(): pass
except Exception:
    def in_except(): pass
with open(__file__) as f:
    def in_with(): pass
for i in range(2):
    def in_for(): pass
match i:
    case 1:
        def in_match(): pass
"""


def every_function(tree: ast.Module) -> list[tuple[str, int]]:
    """The oracle: every def and lambda of the tree, by a full walk."""
    return sorted(
        ("<lambda>" if isinstance(n, ast.Lambda) else n.name, n.lineno)
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    )


def found(source: str) -> list[tuple[str, int]]:
    where = places(ast.parse(source), source.splitlines(keepends=True))
    return sorted((name.rsplit(".", 1)[-1], p.def_line) for name, ps in where.items() for p in ps)


def test_every_def_is_found_without_entering_expressions() -> None:
    assert "lambda" not in SOURCE
    assert found(SOURCE) == every_function(ast.parse(SOURCE))
    qualnames = set(places(ast.parse(SOURCE), SOURCE.splitlines(keepends=True)))
    assert {"top", "top.<locals>.inner", "Holder.method", "in_match"} <= qualnames


def test_lambdas_inside_expressions_are_found() -> None:
    source = SOURCE + "key = sorted([3, 1], key=lambda v: -v)\nmake = {'f': [lambda: (lambda z: z)]}\n"
    assert found(source) == every_function(ast.parse(source))
    assert sum(name == "<lambda>" for name, _line in found(source)) == 3
