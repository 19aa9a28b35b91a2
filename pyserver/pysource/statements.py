"""Every statement of a body, nested ones included, without visiting expressions."""

from __future__ import annotations

import ast
from collections.abc import Iterator


def statements_in(
    body: list[ast.stmt], enclosing: str | None = None
) -> Iterator[tuple[ast.stmt, str | None]]:
    """Every statement, nested ones included, with the name of the top-level function it is in (None at
    module or class level); expressions are not visited (much cheaper than ast.walk)."""
    for node in body:
        yield node, enclosing
        inner_enclosing = enclosing
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and enclosing is None:
            inner_enclosing = node.name
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                yield from statements_in(inner, inner_enclosing)
        for handler in getattr(node, "handlers", ()) or ():
            yield from statements_in(handler.body, inner_enclosing)
        for case in getattr(node, "cases", ()) or ():
            yield from statements_in(case.body, inner_enclosing)
