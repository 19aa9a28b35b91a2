"""Quick fixes for the error classes of pyserver.analysis.worker.report.explain (a diagnostic's data["errorClass"]):
`@njit` on a plain Python helper the jitted code calls, `.astype(np.float64)` on an integer array passed
to np.linalg, a global list turned into a tuple, a typed empty dict (placeholder types), `%` formatting of
integers rebuilt with str() and `+`."""

from __future__ import annotations

import ast
import re
from typing import Any

from pyserver.lsp.source_edits import Edit, Fix, import_edit, module_alias, node_edit, numba_name
from pyserver.lsp.views import cached_lines, parse_module


def plain_function_fixes(source: str, data: dict[str, Any]) -> list[Fix]:
    """`@njit` on the module-level plain function the jitted code calls."""
    tree = parse_module(source)
    name = data.get("name")
    if tree is None or not isinstance(name, str):
        return []
    target = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if target is None:
        return []  # defined in another module (or not a def): nothing to decorate here
    lines = cached_lines(source)
    njit, edits = numba_name(tree, lines, "njit")
    first = min([target.lineno, *(d.lineno for d in target.decorator_list)])
    indent = " " * target.col_offset
    edits.append(Edit(first - 1, 0, first - 1, 0, f"{indent}@{njit}\n"))
    return [Fix(f"Compile '{name}' too: add @{njit} to it", edits, preferred=True)]


def linalg_float_fixes(source: str, line1: int, data: dict[str, Any]) -> list[Fix]:
    """`np.linalg.inv(m)` -> `np.linalg.inv(m.astype(np.float64))` on the diagnostic's line."""
    tree = parse_module(source)
    function = data.get("function")
    if tree is None or not isinstance(function, str):
        return []
    bare = function.rsplit(".", 1)[-1]
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and node.lineno == line1
        and node.args
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == bare)
            or (isinstance(node.func, ast.Name) and node.func.id == bare)
        )
    ]
    if len(calls) != 1:
        return []  # none, or several on one line: which argument is meant is not mechanical
    lines = cached_lines(source)
    argument = calls[0].args[0]
    text = ast.get_source_segment(source, argument)
    if text is None:
        return []
    if not isinstance(argument, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        text = f"({text})"
    edits = []
    numpy_alias = module_alias(tree, "numpy")
    if numpy_alias is None:
        numpy_alias = "np"
        edits.append(import_edit(tree, lines, "import numpy as np"))
    new_text = f"{text}.astype({numpy_alias}.float64)"
    edits.append(node_edit(lines, argument, new_text))
    return [Fix(f"Convert the array to float64: {new_text}", edits, preferred=True)]


def global_list_fixes(source: str, data: dict[str, Any]) -> list[Fix]:
    """A module-level `NAME = [...]` that nothing in the module changes -> a tuple, a compile-time constant."""
    tree = parse_module(source)
    name = data.get("name")
    if tree is None or not isinstance(name, str) or data.get("container") != "list":
        return []
    assigns = [
        n
        for n in tree.body
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
    ]
    if len(assigns) != 1 or not isinstance(assigns[0].value, ast.List):
        return []
    for node in ast.walk(tree):  # a list the module mutates cannot become a tuple
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            return []
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store | ast.Del)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
        ):
            return []
        if isinstance(node, ast.Global) and name in node.names:
            return []
    value = assigns[0].value
    items = [ast.get_source_segment(source, item) for item in value.elts]
    if any(item is None for item in items):
        return []
    tuple_text = (
        "(" + ", ".join(item for item in items if item is not None) + ("," if len(items) == 1 else "") + ")"
    )
    lines = cached_lines(source)
    return [
        Fix(
            f"Make '{name}' a tuple (a constant compiled code can read)",
            [node_edit(lines, value, tuple_text)],
            preferred=True,
        )
    ]


def empty_dict_fixes(source: str, line1: int, data: dict[str, Any]) -> list[Fix]:
    """`d = {}` (or `dict()`) -> `numba.typed.Dict.empty(...)`. Nothing in the function types the dict (else
    Numba would have), so the key and value types are placeholders, said so in the title; never preferred."""
    tree = parse_module(source)
    variable = data.get("variable")
    if tree is None or not isinstance(variable, str) or data.get("container") != "dict":
        return []
    value = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.lineno == line1:
            if any(isinstance(t, ast.Name) and t.id == variable for t in node.targets):
                empty_literal = isinstance(node.value, ast.Dict) and not node.value.keys
                empty_call = (
                    isinstance(node.value, ast.Call)
                    and getattr(node.value.func, "id", None) == "dict"
                    and not node.value.args
                    and not node.value.keywords
                )
                if empty_literal or empty_call:
                    value = node.value
    if value is None:
        return []
    lines = cached_lines(source)
    edits = []
    numba_alias = module_alias(tree, "numba")
    if numba_alias is None:
        numba_alias = "numba"
        edits.append(import_edit(tree, lines, "import numba"))
    typed = f"{numba_alias}.typed.Dict.empty(key_type={numba_alias}.types.unicode_type, value_type={numba_alias}.float64)"
    edits.append(node_edit(lines, value, typed))
    return [Fix(f"Use {typed} (str keys and float64 values are placeholders: put your types)", edits)]


_INTEGER = r"(?:u?int(?:8|16|32|64)|Literal\[int\]\(-?\d+\))"
_PLACEHOLDER = re.compile(r"%(.)")


def _formatted_count(operands: str) -> int | None:
    """How many integers `%` formats, from Numba's type of its right operand; None: not all integers."""
    if re.fullmatch(_INTEGER, operands):
        return 1
    uniform = re.fullmatch(rf"UniTuple\({_INTEGER} x (\d+)\)", operands)
    if uniform:
        return int(uniform.group(1))
    mixed = re.fullmatch(r"Tuple\((.*)\)", operands)
    if mixed and all(re.fullmatch(_INTEGER, t) for t in mixed.group(1).split(", ")):
        return len(mixed.group(1).split(", "))
    return None


def string_format_fixes(source: str, line1: int, data: dict[str, Any]) -> list[Fix]:
    """`"%d items" % n` -> `str(n) + " items"` where every value `%` formats is an integer (Numba's str()
    of an integer gives the text %d does) and the format has only %d, %i, %s and %%."""
    tree = parse_module(source)
    operands = data.get("operands")
    count = _formatted_count(operands) if isinstance(operands, str) else None
    if tree is None or count is None:
        return []
    found = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mod)
        and node.lineno == line1
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
        and node.left.value == data.get("format")
    ]
    if len(found) != 1:
        return []
    binop = found[0]
    pieces = _PLACEHOLDER.split(str(data.get("format")))  # text, conversion, text, ...
    conversions = pieces[1::2]
    if any(c not in "dis%" for c in conversions) or sum(c != "%" for c in conversions) != count:
        return []
    right = ast.get_source_segment(source, binop.right)
    if right is None:
        return []
    if count == 1:
        values = [
            right
            if isinstance(binop.right, ast.Name | ast.Attribute | ast.Subscript | ast.Call)
            else f"({right})"
        ]
    elif isinstance(binop.right, ast.Tuple):
        values = [ast.get_source_segment(source, e) or "" for e in binop.right.elts]
    else:
        values = [f"{right}[{i}]" for i in range(count)]
    parts: list[str] = []
    text = ""
    for index, piece in enumerate(pieces):
        if index % 2 == 0:
            text += piece
        elif piece == "%":
            text += "%"
        else:
            if text:
                parts.append(repr(text))
                text = ""
            parts.append(f"str({values.pop(0)})")
    if text:
        parts.append(repr(text))
    new_text = " + ".join(parts)
    return [
        Fix(f"Build the text without %: {new_text}", [node_edit(cached_lines(source), binop, new_text)], True)
    ]


def error_class_fixes(source: str, line1: int, data: dict[str, Any]) -> list[Fix]:
    kind = data.get("errorClass")
    if kind == "plain-function":
        return plain_function_fixes(source, data)
    if kind == "linalg-int":
        return linalg_float_fixes(source, line1, data)
    if kind == "global-container":
        return global_list_fixes(source, data)
    if kind == "string-formatting":
        return string_format_fixes(source, line1, data)
    if kind == "empty-container":
        return empty_dict_fixes(source, line1, data)
    return []
