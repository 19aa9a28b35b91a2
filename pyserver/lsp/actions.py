"""Quick fixes for three diagnostics, as text edits on the current buffer (code points):

- untyped-variable: the typed-empty-list idiom `[np.float64(x) for x in range(0)]`, or
  `numba.typed.List.empty_list(numba.float64)`, with the element type the list gets elsewhere;
- no-signature: a decorator signature or parameter annotations from the recorded signatures;
- deprecation / nopython-false: remove `nopython=False`, which has no effect since Numba 0.59;
- error classes of pyserver.analysis.worker.report.explain (data["errorClass"]): `@njit` on a plain Python helper the
  jitted code calls, `.astype(np.float64)` on an integer array passed to np.linalg, a global list
  turned into a tuple, a typed empty dict (placeholder types).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from pyserver.analysis.api import JitFunction
from pyserver.lsp.syntax import function_node
from pyserver.lsp.text import utf8_to_index
from pyserver.lsp.views import cached_lines, discover, parse_module

# Numba scalar type name -> the numpy scalar constructor the comprehension idiom calls.
NUMPY_SCALARS = {
    **{name: name for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")},
    **{name: name for name in ("float32", "float64", "complex64", "complex128")},
    "intp": "intp",
    "uintp": "uintp",
    "bool": "bool_",
    "boolean": "bool_",
    "bool_": "bool_",
}
PLACEHOLDER_ELEMENT = "float64"


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


def _col(lines: list[str], line1: int, byte_col: int) -> int:
    return utf8_to_index(lines[line1 - 1] if 0 < line1 <= len(lines) else "", byte_col)


def _node_edit(lines: list[str], node: ast.AST, new_text: str) -> Edit:
    line1 = node.lineno  # type: ignore[attr-defined]
    end1 = node.end_lineno or line1  # type: ignore[attr-defined]
    return Edit(
        line1 - 1,
        _col(lines, line1, node.col_offset),  # type: ignore[attr-defined]
        end1 - 1,
        _col(lines, end1, node.end_col_offset or 0),  # type: ignore[attr-defined]
        new_text,
    )


def _module_alias(tree: ast.Module, module: str) -> str | None:
    """The local name bound to `import module [as alias]` at the top level, if any."""
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == module:
                    return alias.asname or module
    return None


def _import_edit(tree: ast.Module, lines: list[str], statement: str) -> Edit:
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


def _assignment_value(tree: ast.Module, line1: int, variable: str) -> ast.expr | None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno <= line1 <= (
            node.end_lineno or node.lineno
        ):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == variable for t in targets) and node.value is not None:
                value = node.value
                is_empty_list = isinstance(value, ast.List) and not value.elts
                is_list_call = (
                    isinstance(value, ast.Call)
                    and isinstance(value.func, ast.Name)
                    and value.func.id == "list"
                    and not value.args
                    and not value.keywords
                )
                if is_empty_list or is_list_call:
                    return value
    return None


def _enclosing_function(tree: ast.Module, line1: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.lineno <= line1 <= (node.end_lineno or node.lineno):
                if best is None or node.lineno > best.lineno:
                    best = node
    return best


def _free_name(source_names: set[str], preferred: str) -> str:
    name = preferred
    while name in source_names:
        name += "_"
    return name


def untyped_list_fixes(source: str, line1: int, data: dict[str, Any]) -> list[Fix]:
    tree = parse_module(source)
    variable = data.get("variable")
    if tree is None or not isinstance(variable, str):
        return []
    value = _assignment_value(tree, line1, variable)
    if value is None:
        return []
    lines = cached_lines(source)
    element = data.get("elementType")
    known = isinstance(element, str) and element in NUMPY_SCALARS
    if isinstance(element, str) and not known:
        return []  # e.g. a tuple or a string element: no scalar idiom fits; never write a wrong type
    element_name = element if known and isinstance(element, str) else PLACEHOLDER_ELEMENT
    # Unknown (the analysis found no use that types the elements): the fix still writes the idiom, with
    # float64 as a placeholder that the title says to replace, and it is never the preferred fix.
    note = (
        ""
        if known
        else f" (element type unknown: {PLACEHOLDER_ELEMENT} is a placeholder, replace it with the element type)"
    )
    fixes = []

    numpy_alias = _module_alias(tree, "numpy")
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    function = _enclosing_function(tree, line1)
    local_names = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)} if function else names
    loop_var = _free_name(local_names, "x")
    edits = []
    if numpy_alias is None:
        numpy_alias = "np" if "np" not in names else "numpy"
        edits.append(_import_edit(tree, lines, "import numpy" + (" as np" if numpy_alias == "np" else "")))
    comprehension = f"[{numpy_alias}.{NUMPY_SCALARS[element_name]}({loop_var}) for {loop_var} in range(0)]"
    edits.append(_node_edit(lines, value, comprehension))
    fixes.append(Fix(f"Use a typed empty list: {comprehension}{note}", edits, preferred=known))

    numba_alias = _module_alias(tree, "numba")
    edits = []
    if numba_alias is None:
        numba_alias = "numba"
        edits.append(_import_edit(tree, lines, "import numba"))
    typed = f"{numba_alias}.typed.List.empty_list({numba_alias}.{element_name})"
    edits.append(_node_edit(lines, value, typed))
    fixes.append(Fix(f"Use {typed}{note}", edits))
    return fixes


def split_signature(signature: str) -> list[str] | None:
    """ "(float64[:], UniTuple(int64 x 2))" -> ["float64[:]", "UniTuple(int64 x 2)"]; None if unparsable."""
    text = signature.strip()
    if "->" in text:
        text = text.split("->", 1)[0].strip()
    if not (text.startswith("(") and text.endswith(")")):
        return None
    inner = text[1:-1]
    parts, depth, current = [], 0, ""
    for char in inner:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return None
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts if depth == 0 else None


def _jit_function(source: str, name: str) -> JitFunction | None:
    return next((f for f in discover(source) if f.name == name), None)


def _decorator_node(source: str, function: JitFunction) -> ast.expr | None:
    node = function_node(source, function.def_line)
    if node is None:
        return None
    return next((d for d in node.decorator_list if d.lineno == function.decorator_line), None)


def _parser_spelling(signature: str) -> str | None:
    """A recorded signature in the spelling Numba's signature parser reads back exactly."""
    parts = split_signature(signature)
    if parts is None:
        return None
    converted = []
    for part in parts:
        spelled = signature_type(part)
        if spelled is None and re.fullmatch(r"[\w\[\]:, ]+", part) and not part.startswith("array"):
            spelled = part  # already in the parser's spelling, e.g. "float64[:]"
        if spelled is None:
            return None
        converted.append(spelled)
    return "(" + ", ".join(converted) + ")"


def no_signature_fixes(source: str, data: dict[str, Any]) -> list[Fix]:
    recorded = [
        spelled
        for spelled in (_parser_spelling(s) for s in data.get("recorded") or [] if isinstance(s, str))
        if spelled is not None
    ]
    name = data.get("function")
    if not recorded or not isinstance(name, str):
        return []
    function = _jit_function(source, name)
    if function is None or function.kind not in ("njit", "jit") or function.signatures:
        return []
    decorator = _decorator_node(source, function)
    node = function_node(source, function.def_line)
    if decorator is None or node is None:
        return []
    lines = cached_lines(source)
    fixes = []
    choices: list[tuple[str, str]] = [(f'"{sig}"', sig) for sig in recorded]
    if len(recorded) > 1:
        choices.append(("[" + ", ".join(f'"{sig}"' for sig in recorded) + "]", "all recorded signatures"))
    for literal, label in choices:
        if isinstance(decorator, ast.Call):
            if decorator.args:
                continue
            call_end = Edit(
                (decorator.end_lineno or decorator.lineno) - 1,
                _col(lines, decorator.end_lineno or decorator.lineno, decorator.end_col_offset or 0) - 1,
                (decorator.end_lineno or decorator.lineno) - 1,
                _col(lines, decorator.end_lineno or decorator.lineno, decorator.end_col_offset or 0) - 1,
                "",
            )
            if decorator.keywords:
                first = decorator.keywords[0]
                at = Edit(
                    first.lineno - 1,
                    _col(lines, first.lineno, first.col_offset),
                    first.lineno - 1,
                    _col(lines, first.lineno, first.col_offset),
                    literal + ", ",
                )
            else:
                at = Edit(call_end.line, call_end.col, call_end.line, call_end.col, literal)
            edits = [at]
        else:
            end_line = decorator.end_lineno or decorator.lineno
            end_col = _col(lines, end_line, decorator.end_col_offset or 0)
            edits = [Edit(end_line - 1, end_col, end_line - 1, end_col, f"({literal})")]
        fixes.append(Fix(f"Add the decorator signature {label} (compiles eagerly at import)", edits))

    arguments = [*node.args.posonlyargs, *node.args.args]
    defaults = node.args.defaults
    first_default = len(arguments) - len(defaults)
    for sig in recorded:
        arg_types = split_signature(sig)
        if arg_types is None or len(arg_types) != len(arguments) or node.args.vararg or node.args.kwonlyargs:
            continue
        edits = []
        for index, (arg, arg_type) in enumerate(zip(arguments, arg_types, strict=True)):
            if arg.annotation is not None:
                continue
            line1 = arg.end_lineno or arg.lineno
            end = _col(lines, line1, arg.end_col_offset or 0)
            if index >= first_default:
                default = defaults[index - first_default]
                default_col = _col(lines, default.lineno, default.col_offset)
                if default.lineno == line1:
                    edits.append(Edit(line1 - 1, end, line1 - 1, default_col, f': "{arg_type}" = '))
                    continue
            edits.append(Edit(line1 - 1, end, line1 - 1, end, f': "{arg_type}"'))
        if edits:
            fixes.append(Fix(f"Annotate the parameters with {sig}", edits))
    return fixes


def pin_types_fixes(source: str, function: str, signatures: list[list[str]]) -> list[Fix]:
    """For a function whose types came from a run, the cache or a caller: write them into the source,
    so they no longer depend on that run (and CI can type-check it)."""
    recorded = ["(" + ", ".join(args) + ")" for args in signatures]
    fixes = no_signature_fixes(source, {"function": function, "recorded": recorded})
    for fix in fixes:
        fix.title = fix.title.replace(
            "Add the decorator signature", "Write the known types into the decorator:"
        )
        fix.title = fix.title.replace("Annotate the parameters with", "Write the known types as annotations:")
    return fixes


def nopython_false_fixes(source: str, line1: int) -> list[Fix]:
    function = next(
        (
            f
            for f in discover(source)
            if "nopython" in f.option_spans and f.option_spans["nopython"].line == line1
        ),
        None,
    )
    if function is None:
        return []
    decorator = _decorator_node(source, function)
    if not isinstance(decorator, ast.Call):
        return []
    lines = cached_lines(source)
    keywords = decorator.keywords
    index = next((i for i, k in enumerate(keywords) if k.arg == "nopython"), None)
    if index is None:
        return []
    keyword = keywords[index]
    others: list[ast.expr | ast.keyword] = [*decorator.args, *[k for k in keywords if k is not keyword]]
    if not others:
        # `@jit(nopython=False)` -> `@jit`
        func_end_line = decorator.func.end_lineno or decorator.func.lineno
        edit = Edit(
            func_end_line - 1,
            _col(lines, func_end_line, decorator.func.end_col_offset or 0),
            (decorator.end_lineno or decorator.lineno) - 1,
            _col(lines, decorator.end_lineno or decorator.lineno, decorator.end_col_offset or 0),
            "",
        )
    else:
        ordered: list[ast.expr | ast.keyword] = sorted(
            [*decorator.args, *keywords], key=lambda n: (n.lineno, n.col_offset)
        )
        position = ordered.index(keyword)
        if position > 0:
            previous = ordered[position - 1]
            start_line = previous.end_lineno or previous.lineno
            edit = Edit(
                start_line - 1,
                _col(lines, start_line, previous.end_col_offset or 0),
                (keyword.end_lineno or keyword.lineno) - 1,
                _col(lines, keyword.end_lineno or keyword.lineno, keyword.end_col_offset or 0),
                "",
            )
        else:
            following = ordered[1]
            edit = Edit(
                keyword.lineno - 1,
                _col(lines, keyword.lineno, keyword.col_offset),
                following.lineno - 1,
                _col(lines, following.lineno, following.col_offset),
                "",
            )
    return [
        Fix(
            "Remove nopython=False (no effect since Numba 0.59: @jit always compiles in nopython mode; "
            "use forceobj=True for object mode)",
            [edit],
            preferred=True,
        )
    ]


def _numba_name(tree: ast.Module, lines: list[str], name: str) -> tuple[str, list[Edit]]:
    """How this module spells `numba.<name>` (e.g. `njit` or `numba.njit`), and the import edit if none."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "numba" and node.level == 0:
            for alias in node.names:
                if alias.name == name:
                    return alias.asname or name, []
    numba_alias = _module_alias(tree, "numba")
    if numba_alias is not None:
        return f"{numba_alias}.{name}", []
    return name, [_import_edit(tree, lines, f"from numba import {name}")]


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
    njit, edits = _numba_name(tree, lines, "njit")
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
    numpy_alias = _module_alias(tree, "numpy")
    if numpy_alias is None:
        numpy_alias = "np"
        edits.append(_import_edit(tree, lines, "import numpy as np"))
    new_text = f"{text}.astype({numpy_alias}.float64)"
    edits.append(_node_edit(lines, argument, new_text))
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
            [_node_edit(lines, value, tuple_text)],
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
    numba_alias = _module_alias(tree, "numba")
    if numba_alias is None:
        numba_alias = "numba"
        edits.append(_import_edit(tree, lines, "import numba"))
    typed = f"{numba_alias}.typed.Dict.empty(key_type={numba_alias}.types.unicode_type, value_type={numba_alias}.float64)"
    edits.append(_node_edit(lines, value, typed))
    return [Fix(f"Use {typed} (str keys and float64 values are placeholders: put your types)", edits)]


def error_class_fixes(source: str, line1: int, data: dict[str, Any]) -> list[Fix]:
    kind = data.get("errorClass")
    if kind == "plain-function":
        return plain_function_fixes(source, data)
    if kind == "linalg-int":
        return linalg_float_fixes(source, line1, data)
    if kind == "global-container":
        return global_list_fixes(source, data)
    if kind == "empty-container":
        return empty_dict_fixes(source, line1, data)
    return []


def quick_fixes(source: str, code: str, line1: int, data: dict[str, Any] | None) -> list[Fix]:
    """Fixes for one diagnostic: `code`, its 1-based start line and its `data`."""
    data = data or {}
    by_class = error_class_fixes(source, line1, data) if data.get("errorClass") else []
    if by_class:
        return by_class
    if code == "untyped-variable":
        return untyped_list_fixes(source, line1, data)
    if code == "no-signature":
        return no_signature_fixes(source, data)
    if code == "deprecation" and data.get("kind") == "nopython-false":
        return nopython_false_fixes(source, line1)
    return []


# --- Numba type text -> text Numba's signature parser accepts --------------------------------------
_SCALAR_NAMES = {
    *(f"int{n}" for n in (8, 16, 32, 64)),
    *(f"uint{n}" for n in (8, 16, 32, 64)),
    "float32",
    "float64",
    "complex64",
    "complex128",
    "intp",
    "uintp",
    "unicode_type",
    "none",
}
_ARRAY = re.compile(r"^array\((?P<dtype>\w+), (?P<ndim>\d+)d, (?P<layout>[CFA])\)$")
_UNITUPLE = re.compile(r"^UniTuple\((?P<item>.+) x (?P<count>\d+)\)$")


def signature_type(text: str) -> str | None:
    """`array(float64, 1d, C)` -> `float64[::1]`, `bool` -> `boolean`, ...; None when the type has no
    exact spelling in a signature string (readonly arrays, records, ...): never write a wrong type."""
    text = text.strip()
    if text in _SCALAR_NAMES:
        return text
    if text in ("bool", "boolean"):
        return "boolean"
    array = _ARRAY.match(text)
    if array is not None:
        dtype = signature_type(array.group("dtype"))
        ndim = int(array.group("ndim"))
        if dtype is None or ndim < 1 or dtype in ("unicode_type", "none"):
            return None
        dims = [":"] * ndim
        if array.group("layout") == "C":
            dims[-1] = "::1"
        elif array.group("layout") == "F":
            dims[0] = "::1"
        return f"{dtype}[{', '.join(dims)}]"
    unituple = _UNITUPLE.match(text)
    if unituple is not None:
        item = signature_type(unituple.group("item"))
        return f"UniTuple({item}, {unituple.group('count')})" if item else None
    return None


def signature_text(args: list[str]) -> str | None:
    converted = [signature_type(arg) for arg in args]
    if any(item is None for item in converted):
        return None
    return "(" + ", ".join(item for item in converted if item is not None) + ")"
