"""Side-effect-free expressions over a jitted frame's values (hover, watch, the REPL's first try):
names, members, indexing, arithmetic, comparisons; calls and assignments are refused."""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any, Protocol

from pyserver.debug.values.model import ChildrenHandle, JitValueError, JitVariable
from pyserver.debug.values.numba_types import NumbaType, format_complex, format_float
from pyserver.debug.values.report import FrameReport


class ChildrenSource(Protocol):
    """Where indexing an array or list reads the element (the value reader)."""

    def children(
        self, handle: ChildrenHandle, start: int = 0, count: int | None = None
    ) -> list[JitVariable]: ...


class NotInSubset(Exception):
    """The expression uses something the safe evaluator does not do (calls, assignments, ...)."""


_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_COMPARES: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}


def tuple_variable(
    name: str,
    numba_type: NumbaType,
    report: FrameReport,
    children: list[JitVariable],
    *,
    note: str = "",
) -> JitVariable:
    """A tuple (or named tuple) shown as Python prints it, expanding to its members."""
    text = "(" + ", ".join(c.value for c in children) + ("," if len(children) == 1 else "") + ")"
    if numba_type.class_name:
        text = f"{numba_type.class_name}{text}"
    handle = ChildrenHandle("static", report.thread_id, report.frame_level, items=children)
    return JitVariable(
        name,
        text,
        numba_type.text,
        children=handle if children else None,
        named_count=len(children),
        raw=children,
        evaluate_name=name,
        note=note,
    )


def _scalar_variable(expression: str, value: Any) -> JitVariable:
    if isinstance(value, bool):
        return JitVariable(expression, str(value), "bool", raw=value, evaluate_name=expression)
    if isinstance(value, int):
        return JitVariable(expression, str(value), "int64", raw=value, evaluate_name=expression)
    if isinstance(value, float):
        return JitVariable(expression, format_float(value), "float64", raw=value, evaluate_name=expression)
    if isinstance(value, complex):
        return JitVariable(
            expression, format_complex(value), "complex128", raw=value, evaluate_name=expression
        )
    if isinstance(value, str):
        return JitVariable(expression, repr(value), "unicode_type", raw=value, evaluate_name=expression)
    raise NotInSubset(f"cannot show a value of type {type(value).__name__}")


class Evaluator:
    def __init__(
        self,
        reader: ChildrenSource,
        thread_id: int,
        frame_level: int,
        names: dict[str, JitVariable],
        expression: str,
    ) -> None:
        self.reader = reader
        self.thread_id = thread_id
        self.frame_level = frame_level
        self.names = names
        self.expression = expression

    def run(self, tree: ast.Expression) -> JitVariable:
        result = self.node(tree.body)
        if isinstance(result, JitVariable):
            if not result.available:
                raise JitValueError(f"{self.expression}: unavailable ({result.note or 'not readable here'})")
            out = JitVariable(**{**result.__dict__})
            out.name = self.expression
            return out
        return _scalar_variable(self.expression, result)

    def value(self, node: ast.AST) -> Any:
        result = self.node(node)
        if isinstance(result, JitVariable):
            if not result.available:
                raise JitValueError(
                    f"{ast.unparse(node)} is unavailable ({result.note or 'not readable here'})"
                )
            if result.raw is None or isinstance(result.raw, (ChildrenHandle, list, dict)):
                raise JitValueError(f"{ast.unparse(node)} is not a number")
            return result.raw
        return result

    def node(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex, bool, str)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            if node.id in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.id]
            raise NotInSubset(f"name {node.id!r} is not a variable of this frame")
        if isinstance(node, ast.UnaryOp):
            operand = self.value(node.operand)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return +operand
            if isinstance(node.op, ast.Not):
                return not operand
            raise NotInSubset("operator not supported")
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise NotInSubset("operator not supported")
            try:
                return op(self.value(node.left), self.value(node.right))
            except (ArithmeticError, TypeError) as exc:
                raise JitValueError(f"{self.expression}: {exc}") from None
        if isinstance(node, ast.Compare):
            left = self.value(node.left)
            for op_node, right_node in zip(node.ops, node.comparators, strict=False):
                compare = _COMPARES.get(type(op_node))
                if compare is None:
                    raise NotInSubset("comparison not supported")
                right = self.value(right_node)
                try:
                    if not compare(left, right):
                        return False
                except TypeError as exc:
                    raise JitValueError(f"{self.expression}: {exc}") from None
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            values = [self.value(v) for v in node.values]
            if isinstance(node.op, ast.And):
                return all(values)
            return any(values)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, (ast.Call, ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom)):
            raise NotInSubset("calls and assignments are not evaluated in watch or hover expressions")
        raise NotInSubset(f"{type(node).__name__} expressions are not supported")

    def _index(self, node: ast.AST) -> list[int]:
        if isinstance(node, ast.Tuple):
            return [self._one_index(element) for element in node.elts]
        return [self._one_index(node)]

    def _one_index(self, node: ast.AST) -> int:
        if isinstance(node, ast.Slice):
            raise NotInSubset("slices are not supported")
        value = self.value(node)
        if isinstance(value, bool) or not isinstance(value, int):
            raise JitValueError(f"index {ast.unparse(node)} is not an integer")
        return value

    def subscript(self, node: ast.Subscript) -> Any:
        target = self.node(node.value)
        if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            # A record's field by name (`p["w"]`, as Python and Numba write it; `p.w` is the attribute).
            key = node.slice.value
            record = isinstance(target, JitVariable) and target.type.startswith("Record(")
            if record and isinstance(target.raw, dict) and key in target.raw:
                return target.raw[key]
            raise JitValueError(f"{ast.unparse(node.value)} has no field {key!r}")
        indices = self._index(node.slice)
        for index in indices:
            if not isinstance(target, JitVariable):
                raise JitValueError(f"{ast.unparse(node.value)} cannot be indexed")
            if not target.available:
                raise JitValueError(f"{ast.unparse(node.value)} is unavailable ({target.note})")
            handle = target.raw
            if isinstance(handle, ChildrenHandle) and handle.kind in ("array", "list"):
                length = handle.shape[0] if handle.kind == "array" else handle.count
                real = index + length if index < 0 else index
                if not 0 <= real < length:
                    raise JitValueError(f"index {index} is out of bounds for length {length}")
                target = self.reader.children(handle, real, 1)[0]
            elif isinstance(handle, list):
                if not -len(handle) <= index < len(handle):
                    raise JitValueError(f"index {index} is out of range")
                target = handle[index]
            else:
                raise JitValueError(f"{ast.unparse(node.value)} cannot be indexed")
        return target

    def attribute(self, node: ast.Attribute) -> Any:
        target = self.node(node.value)
        attr = node.attr
        if not isinstance(target, JitVariable):
            if isinstance(target, complex) and attr in ("real", "imag"):
                return getattr(target, attr)
            raise NotInSubset(f"attribute {attr} not supported")
        if not target.available:
            raise JitValueError(f"{ast.unparse(node.value)} is unavailable ({target.note})")
        raw = target.raw
        if isinstance(raw, ChildrenHandle) and raw.kind == "array":
            if attr == "shape":
                return JitVariable(
                    f"{target.name}.shape",
                    "(" + ", ".join(map(str, raw.shape)) + ("," if len(raw.shape) == 1 else "") + ")",
                    f"UniTuple(int64 x {len(raw.shape)})",
                    raw=[_scalar_variable(f"[{i}]", s) for i, s in enumerate(raw.shape)],
                )
            if attr == "ndim":
                return len(raw.shape)
            if attr == "size":
                return math.prod(raw.shape)
            if attr == "strides":
                return JitVariable(
                    f"{target.name}.strides",
                    "(" + ", ".join(map(str, raw.strides)) + ("," if len(raw.strides) == 1 else "") + ")",
                    f"UniTuple(int64 x {len(raw.strides)})",
                    raw=[_scalar_variable(f"[{i}]", s) for i, s in enumerate(raw.strides)],
                )
        if isinstance(raw, dict) and attr in raw:
            return raw[attr]
        if isinstance(raw, complex) and attr in ("real", "imag"):
            return getattr(raw, attr)
        raise JitValueError(f"{target.type or target.name} has no attribute {attr!r} here")
