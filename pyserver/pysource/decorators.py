"""The decorators that make nothing jitted, by the last part of their dotted name: one table, with the
subset each use needs."""

from __future__ import annotations

import ast
from collections.abc import Callable

# Decorators of the standard library and of pytest that wrap or mark a function and never jit it.
PLAIN_DECORATORS = frozenset(
    {
        "property",
        "staticmethod",
        "classmethod",
        "abstractmethod",
        "cached_property",
        "setter",
        "getter",
        "deleter",
        "lru_cache",
        "cache",
        "wraps",
        "contextmanager",
        "dataclass",
        "total_ordering",
        "singledispatch",
        "fixture",
        "parametrize",
    }
)

# Discovery: a module whose only decorators are these is not loaded. `overload` here is typing.overload
# by its bare name (Numba's @overload is found by its import, not by this table).
NEVER_JITTING_DECORATORS = PLAIN_DECORATORS | frozenset(
    {"asynccontextmanager", "overload", "override", "skip", "skipif", "xfail", "usefixtures"}
)

# The top-level slice: the bodies these decorate are not roots of the slice. `overload_typing` is
# typing.overload imported under that name; `mark` is pytest.mark used bare; the others are pytest's marks.
NOT_SLICE_ROOT_DECORATORS = PLAIN_DECORATORS | frozenset(
    {"overload_typing", "mark", "skip", "skipif", "xfail", "usefixtures", "filterwarnings"}
)


def decorator_aliases(tree: ast.Module, is_plain: Callable[[ast.expr], bool]) -> frozenset[str]:
    """The names a module binds at its top level to a plain decorator, by `is_plain` of the decorator's
    expression (a call's function): `too_slow = pytest.mark.skipif(DISABLE_JIT, reason=...)`, then
    `@too_slow` on a test."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value.func if isinstance(node.value, ast.Call) else node.value
            if isinstance(value, ast.Name | ast.Attribute) and is_plain(value):
                names.add(node.targets[0].id)
    return frozenset(names)
