"""The element type of an untyped list: from the typemap and what its aliases are given (quick fix data).

Part of the numba_api fence (see its __init__): Numba internals live only in this package.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

from numba.core import ir
from numba.core import types as nbtypes

UNTYPED_NAME = re.compile(r"variable '([^']+)'")


def _list_aliases(func_ir: Any, name: str) -> set[str]:
    """`name` and the variables that hold the same list: plain copies either way, and phi merges of it."""
    aliases = {name}
    assigns = [
        stmt for block in func_ir.blocks.values() for stmt in block.body if isinstance(stmt, ir.Assign)
    ]
    changed = True
    while changed:
        changed = False
        for stmt in assigns:
            value, target = stmt.value, stmt.target.name
            sources: list[str] = []
            if isinstance(value, ir.Var):
                sources = [value.name]
                if target in aliases and value.name not in aliases:
                    aliases.add(value.name)
                    changed = True
            elif isinstance(value, ir.Expr) and value.op == "phi":
                sources = [v.name for v in value.incoming_values if isinstance(v, ir.Var)]
            if target not in aliases and any(s in aliases for s in sources):
                aliases.add(target)
                changed = True
    return aliases


def _element_of(ty: Any) -> Any | None:
    """The element type a value of type `ty` contributes to a list it extends (a list, an array, ...)."""
    if isinstance(ty, nbtypes.List | nbtypes.ListType):
        return ty.dtype
    if isinstance(ty, nbtypes.Array):
        return ty.dtype if ty.ndim == 1 else None
    if isinstance(ty, nbtypes.IterableType):
        return ty.iterator_type.yield_type
    return None


def untyped_list_element(
    func_ir: Any,
    typemap: dict[str, Any],
    name: str,
    callee_list_element: Callable[[Any, list[Any], int], Any | None] | None = None,
) -> Any | None:
    """The element type the other uses of an untyped empty list give it, from the partial typemap:
    the first (in source order) `.append(x)`, `.insert(i, x)`, `.extend(xs)`, `values[i] = x` or
    `values += [x]` whose value Numba did type; else what a jitted callee it is passed to puts in it,
    asked through `callee_list_element` (inference of that callee). None when no use tells (never a
    guess)."""
    aliases = _list_aliases(func_ir, name)
    methods: dict[str, str] = {}  # bound-method variable -> method name
    found: list[tuple[int, Any]] = []
    statements = [stmt for block in func_ir.blocks.values() for stmt in block.body]
    for stmt in statements:
        if (
            isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, ir.Expr)
            and stmt.value.op == "getattr"
            and stmt.value.value.name in aliases
        ):
            methods[stmt.target.name] = stmt.value.attr
    for stmt in statements:
        line = int(stmt.loc.line or 0) if stmt.loc is not None else 0
        element = None
        if isinstance(stmt, ir.SetItem | ir.StaticSetItem) and stmt.target.name in aliases:
            element = typemap.get(stmt.value.name)
        elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr):
            expr = stmt.value
            if expr.op == "call" and expr.func.name in methods:
                method, args = methods[expr.func.name], expr.args
                if method == "append" and len(args) == 1:
                    element = typemap.get(args[0].name)
                elif method == "insert" and len(args) == 2:
                    element = typemap.get(args[1].name)
                elif method == "extend" and len(args) == 1:
                    element = _element_of(typemap.get(args[0].name))
            elif (
                expr.op in ("inplace_binop", "binop")
                and getattr(expr, "fn", None) in (operator.iadd, operator.add)
                and expr.lhs.name in aliases
            ):
                element = _element_of(typemap.get(expr.rhs.name))
        if element is not None:
            found.append((line, element))
    for _line, element in sorted(found, key=lambda item: item[0]):
        element = nbtypes.unliteral(element)
        if isinstance(element, nbtypes.Type) and element.is_precise():
            return element
    # No use here tells: a jitted function the list is passed to may fill it.
    if callee_list_element is None:
        return None
    for stmt in statements:
        if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr) and stmt.value.op == "call"):
            continue
        expr = stmt.value
        callee = getattr(typemap.get(expr.func.name), "dispatcher", None)
        positions = [i for i, arg in enumerate(expr.args) if arg.name in aliases]
        if callee is None or len(positions) != 1 or expr.kws or expr.vararg is not None:
            continue
        element = callee_list_element(callee, [typemap.get(arg.name) for arg in expr.args], positions[0])
        if element is not None:
            return element
    return None
