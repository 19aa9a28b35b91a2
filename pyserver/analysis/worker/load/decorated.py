"""Which definitions the top-level slice takes for roots: those decorated by anything but the plain
decorators (pytest's marks, the standard library's wrappers), and the module's own names for those."""

from __future__ import annotations

import ast

from pyserver.analysis.worker.discover.discovery import dotted_name
from pyserver.pysource import NOT_SLICE_ROOT_DECORATORS


def is_decorated(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, plain: frozenset[str] = frozenset()
) -> bool:
    """Decorated by anything but plain decorators (NOT_SLICE_ROOT_DECORATORS, and the module's names for
    them in `plain`)."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if not is_plain_decorator(target) and dotted_name(target) not in plain:
            return True
    return False


def has_decorated_methods(node: ast.ClassDef, plain: frozenset[str] = frozenset()) -> bool:
    return any(
        is_decorated(item, plain)
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
        else isinstance(item, ast.ClassDef)
        and (is_decorated(item, plain) or has_decorated_methods(item, plain))
        for item in node.body
    )


def is_plain_decorator(value: ast.expr) -> bool:
    """`pytest.mark.skipif`, `functools.lru_cache`, and any pytest mark (`pytest.mark.veryslow`): a
    decorator that is no slice root."""
    parts = (dotted_name(value) or "").split(".")
    return parts[-1] in NOT_SLICE_ROOT_DECORATORS or "mark" in parts[:-1]
