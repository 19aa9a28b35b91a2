"""Quick fixes for three diagnostics, as text edits on the current buffer (code points):

- untyped-variable: the typed-empty-list idiom `[np.float64(x) for x in range(0)]`, or
  `numba.typed.List.empty_list(numba.float64)`, with the element type the list gets elsewhere;
- no-signature: a decorator signature or parameter annotations from the recorded signatures;
- deprecation / nopython-false: remove `nopython=False`, which has no effect since Numba 0.59;
- error classes of pyserver.analysis.worker.report.explain (data["errorClass"]): pyserver.lsp.error_class_fixes.

And the refactoring that writes types known from a run, the cache or a caller into the source.
"""

from __future__ import annotations

import ast
from typing import Any

from pyserver.lsp.error_class_fixes import error_class_fixes
from pyserver.lsp.signature_spelling import parser_spelling, split_signature
from pyserver.lsp.source_edits import (
    Edit,
    Fix,
    code_point_col,
    decorator_node,
    import_edit,
    jit_function,
    module_alias,
    node_edit,
)
from pyserver.lsp.syntax import function_node
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

    numpy_alias = module_alias(tree, "numpy")
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    function = _enclosing_function(tree, line1)
    local_names = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)} if function else names
    loop_var = _free_name(local_names, "x")
    edits = []
    if numpy_alias is None:
        numpy_alias = "np" if "np" not in names else "numpy"
        edits.append(import_edit(tree, lines, "import numpy" + (" as np" if numpy_alias == "np" else "")))
    comprehension = f"[{numpy_alias}.{NUMPY_SCALARS[element_name]}({loop_var}) for {loop_var} in range(0)]"
    edits.append(node_edit(lines, value, comprehension))
    fixes.append(Fix(f"Use a typed empty list: {comprehension}{note}", edits, preferred=known))

    numba_alias = module_alias(tree, "numba")
    edits = []
    if numba_alias is None:
        numba_alias = "numba"
        edits.append(import_edit(tree, lines, "import numba"))
    typed = f"{numba_alias}.typed.List.empty_list({numba_alias}.{element_name})"
    edits.append(node_edit(lines, value, typed))
    fixes.append(Fix(f"Use {typed}{note}", edits))
    return fixes


def no_signature_fixes(source: str, data: dict[str, Any]) -> list[Fix]:
    recorded = [
        spelled
        for spelled in (parser_spelling(s) for s in data.get("recorded") or [] if isinstance(s, str))
        if spelled is not None
    ]
    name = data.get("function")
    if not recorded or not isinstance(name, str):
        return []
    function = jit_function(source, name)
    if function is None or function.kind not in ("njit", "jit") or function.signatures:
        return []
    decorator = decorator_node(source, function)
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
                code_point_col(lines, decorator.end_lineno or decorator.lineno, decorator.end_col_offset or 0)
                - 1,
                (decorator.end_lineno or decorator.lineno) - 1,
                code_point_col(lines, decorator.end_lineno or decorator.lineno, decorator.end_col_offset or 0)
                - 1,
                "",
            )
            if decorator.keywords:
                first = decorator.keywords[0]
                at = Edit(
                    first.lineno - 1,
                    code_point_col(lines, first.lineno, first.col_offset),
                    first.lineno - 1,
                    code_point_col(lines, first.lineno, first.col_offset),
                    literal + ", ",
                )
            else:
                at = Edit(call_end.line, call_end.col, call_end.line, call_end.col, literal)
            edits = [at]
        else:
            end_line = decorator.end_lineno or decorator.lineno
            end_col = code_point_col(lines, end_line, decorator.end_col_offset or 0)
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
            end = code_point_col(lines, line1, arg.end_col_offset or 0)
            if index >= first_default:
                default = defaults[index - first_default]
                default_col = code_point_col(lines, default.lineno, default.col_offset)
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
    decorator = decorator_node(source, function)
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
            code_point_col(lines, func_end_line, decorator.func.end_col_offset or 0),
            (decorator.end_lineno or decorator.lineno) - 1,
            code_point_col(lines, decorator.end_lineno or decorator.lineno, decorator.end_col_offset or 0),
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
                code_point_col(lines, start_line, previous.end_col_offset or 0),
                (keyword.end_lineno or keyword.lineno) - 1,
                code_point_col(lines, keyword.end_lineno or keyword.lineno, keyword.end_col_offset or 0),
                "",
            )
        else:
            following = ordered[1]
            edit = Edit(
                keyword.lineno - 1,
                code_point_col(lines, keyword.lineno, keyword.col_offset),
                following.lineno - 1,
                code_point_col(lines, following.lineno, following.col_offset),
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


__all__ = ["Edit", "Fix", "pin_types_fixes", "quick_fixes"]
