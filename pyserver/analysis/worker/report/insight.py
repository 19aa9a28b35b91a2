"""What Numba made of the code, beyond errors: surprises and type-instability hints.

- Surprises (warnings, on by default): code that compiles but does not do what it reads as: a float
  formatted inside compiled code ("<object type:float64>" at run time), `~` on a boolean (NumPy's
  logical not instead of Python's -2), a global the module assigns again (compiled code keeps the value
  it had at compile time). From Numba's "Deviations from Python semantics".
- Type hints (Hint severity, off by default: `numbaLens.typeHints`, `check --type-hints`): Optional and
  pyobject variables, reflected containers, 'A'-layout arrays indexed in loops, an integer variable
  silently promoted to float, a mixed-type tuple indexed with a variable.

Both are computed from what the analysis already records per signature (variables with their SSA
versions, typed calls) and the Python AST: no extra Numba pass.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pyserver.analysis.codes import CODE_TABLE, doc_link
from pyserver.analysis.model import Diagnostic, FileResult, FunctionInfo, ParallelLoop, Range, SignatureResult
from pyserver.analysis.worker.discover.discovery import nested_statements
from pyserver.analysis.worker.report.report import SourceIndex
from pyserver.caches import BoundedCache, bounded_cache

if TYPE_CHECKING:  # the language server imports this module without Numba (it may be missing)
    from pyserver.numba_api import ParforFact

_OBJECT_TEXT = re.compile(r"<object type:([\w\[\]() ,]+?)>")
_INT = re.compile(r"^u?int\d+$|^intp$|^uintp$")
_FLOAT = re.compile(r"^float\d+$")


def _diagnostic(
    path: str, range_: Range, severity: str, code: str, message: str, function: FunctionInfo, signature: str
) -> Diagnostic:
    info = CODE_TABLE[code]
    return Diagnostic(
        path=path,
        range=range_,
        severity=severity,  # type: ignore[arg-type]
        code=code,
        message=message,
        function=function.name,
        signature=signature,
        codeDescription=doc_link(code),
        data={"why": info.why, "fix": info.fix},
    )


def _function_node(
    index: SourceIndex, function: FunctionInfo
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    return index.function_node(function.line)


def _signatures(function: FunctionInfo) -> Iterable[SignatureResult]:
    return (s for s in function.signatures if s.mode == "nopython")


# ---------------------------------------------------------------------------------------- surprises


def _float_format(path: str, function: FunctionInfo, index: SourceIndex) -> list[Diagnostic]:
    found: dict[int, Diagnostic] = {}
    for signature in _signatures(function):
        for call in signature.call_types:
            if call.name not in ("str", "format") or call.line in found:
                continue
            shown = _OBJECT_TEXT.search(call.signature)
            if shown is None:
                continue
            ty = shown.group(1)
            nodes = index.nodes_on_line(call.line, ast.JoinedStr) or [
                n
                for n in index.nodes_on_line(call.line, ast.Call)
                if isinstance(n, ast.Call) and getattr(n.func, "id", None) in ("str", "format")
            ]
            range_ = index.node_range(nodes[0]) if nodes else index.line_range(call.line)
            found[call.line] = _diagnostic(
                path,
                range_,
                "warning",
                "float-format",
                f"This formats a {ty} as the text '<object type:{ty}>', not as its value: compiled code "
                "cannot format floats.",
                function,
                signature.text,
            )
    return list(found.values())


def _bool_invert(path: str, function: FunctionInfo, index: SourceIndex) -> list[Diagnostic]:
    found: dict[int, Diagnostic] = {}
    bool_inverts = [
        (signature, call)
        for signature in _signatures(function)
        for call in signature.call_types
        if call.name == "invert" and call.signature.startswith("(bool)")
    ]
    if not bool_inverts:
        return []
    numpy_names = _numpy_module_names(index.tree)
    node = _function_node(index, function)
    arrays_of: dict[int, set[str]] = {}  # per signature: its variables that hold arrays
    for signature, call in bool_inverts:
        if call.line in found:
            continue
        inverts = [
            n
            for n in index.nodes_on_line(call.line, ast.UnaryOp)
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Invert)
        ]
        arrays = arrays_of.setdefault(
            id(signature), {v.name for v in signature.variables if "array(" in v.type}
        )
        nodes = [n for n in inverts if not _numpy_bool(n.operand, arrays, numpy_names, node)]
        if inverts and not nodes:
            continue  # `~` of a NumPy bool (an array's element): a logical not in Python too
        range_ = index.node_range(nodes[0]) if nodes else index.line_range(call.line)
        found[call.line] = _diagnostic(
            path,
            range_,
            "warning",
            "bool-invert",
            "`~` on a boolean is a logical not in compiled code (NumPy's rule), but -2 or -1 in Python: "
            "write `not` instead.",
            function,
            signature.text,
        )
    return list(found.values())


def _numpy_module_names(tree: ast.Module | None) -> set[str]:
    """The names the module binds NumPy to (`np` of `import numpy as np`)."""
    names = set()
    for statement in tree.body if tree is not None else ():
        if isinstance(statement, ast.Import):
            names |= {a.asname or a.name for a in statement.names if a.name == "numpy"}
    return names


def _numpy_bool(
    node: ast.expr,
    arrays: set[str],
    numpy_names: set[str],
    function: ast.FunctionDef | ast.AsyncFunctionDef | None,
    depth: int = 0,
) -> bool:
    """Whether the value `node` reads is a NumPy bool in Python (where `~` is a logical not too): an
    array's element, what a NumPy function or an array's method returns, a comparison of such values,
    or a local variable only ever assigned one of these."""
    if depth > 4:
        return False
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Name) and node.value.id in arrays
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        return isinstance(owner, ast.Name) and (owner.id in numpy_names or owner.id in arrays)
    if isinstance(node, ast.Compare):
        return any(
            _numpy_bool(side, arrays, numpy_names, function, depth + 1)
            for side in [node.left, *node.comparators]
        )
    if isinstance(node, ast.Name) and function is not None:
        values = _only_assigned_values(function, node.id)
        return bool(values) and all(_numpy_bool(v, arrays, numpy_names, function, depth + 1) for v in values)
    return False


def _only_assigned_values(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> list[ast.expr]:
    """The values of the plain assignments `name = value` in the function, or [] where the name is bound
    any other way too (a parameter, a loop target, an unpacking)."""
    if name in {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}:
        return []
    stores = sum(
        1
        for n in ast.walk(function)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
    )
    values = [
        statement.value
        for statement in ast.walk(function)
        if isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id == name
    ]
    return values if len(values) == stores else []


# id(top-level statement) -> (it, the names it assigns with their lines, the names it binds otherwise)
_STATEMENT_ASSIGNMENTS: BoundedCache[int, tuple[ast.stmt, dict[str, list[int]], frozenset[str]]] = (
    bounded_cache("insight.statement_assignments", 8192)
)


def module_assignments(tree: ast.Module) -> tuple[dict[str, list[int]], set[str]]:
    """Assignment lines per name on one path through the module's top level (the branches of an `if` or
    a `try` are alternatives: the longer one counts; a loop's body counts twice, as it re-assigns);
    a `global` statement in a function counts as one more; names bound by def/import/class."""
    bound_otherwise: set[str] = set()
    bound_all: set[str] = set()

    def merge_longest(branches: list[dict[str, list[int]]]) -> dict[str, list[int]]:
        merged: dict[str, list[int]] = {}
        for branch in branches:
            for name, lines in branch.items():
                if len(lines) > len(merged.get(name, [])):
                    merged[name] = lines
        return merged

    def visit(body: list[ast.stmt]) -> dict[str, list[int]]:
        assigned: dict[str, list[int]] = {}

        def extend(found: dict[str, list[int]]) -> None:
            for name, lines in found.items():
                assigned.setdefault(name, []).extend(lines)

        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound_otherwise.add(node.name)
                for inner in nested_statements(node):  # a `global` is a statement: no expression is walked
                    if isinstance(inner, ast.Global):
                        extend({name: [inner.lineno] for name in inner.names})
            elif isinstance(node, ast.Import | ast.ImportFrom):
                for alias in node.names:
                    bound_otherwise.add((alias.asname or alias.name).split(".")[0])
            elif isinstance(node, ast.If):
                extend(merge_longest([visit(node.body), visit(node.orelse)]))
            elif isinstance(node, ast.Try):
                handlers = [visit(handler.body) for handler in node.handlers]
                extend(merge_longest([visit(node.body + node.orelse), *handlers]))
                extend(visit(node.finalbody))
            elif isinstance(node, ast.For | ast.While):
                looped = visit(node.body)
                extend({name: lines * 2 for name, lines in looped.items()})
                extend(visit(node.orelse))
            elif isinstance(node, ast.With):
                extend(visit(node.body))
            else:
                targets: list[ast.expr] = []
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif (
                    isinstance(node, ast.AugAssign | ast.AnnAssign)
                    and getattr(node, "value", None) is not None
                ):
                    targets = [node.target]
                for target in targets:
                    for bound in ast.walk(target):
                        if isinstance(bound, ast.Name):
                            assigned.setdefault(bound.id, []).append(node.lineno)
        return assigned

    assigned: dict[str, list[int]] = {}
    for node in tree.body:
        # One top-level statement's part at a time: a statement an edit did not touch is the previous
        # parse's node (incremental_parse; nothing changes a node), and its part is the one found before.
        kept = _STATEMENT_ASSIGNMENTS.get(id(node))
        if kept is None or kept[0] is not node:
            bound_otherwise = set()
            kept = _STATEMENT_ASSIGNMENTS[id(node)] = (node, visit([node]), frozenset(bound_otherwise))
        for name, lines in kept[1].items():
            assigned.setdefault(name, []).extend(lines)
        bound_all.update(kept[2])
    return assigned, bound_all


def _frozen_globals(path: str, functions: list[FunctionInfo], index: SourceIndex) -> list[Diagnostic]:
    if index.tree is None:
        return []
    assigned, bound_otherwise = module_assignments(index.tree)
    changed = {
        name: lines for name, lines in assigned.items() if len(lines) > 1 and name not in bound_otherwise
    }
    diagnostics: list[Diagnostic] = []
    if not changed:
        return diagnostics
    for function in functions:
        signatures = list(_signatures(function))
        node = _function_node(index, function)
        if not signatures or node is None or not changed:
            continue
        local = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        reported: set[str] = set()
        for name_node in ast.walk(node):
            if not (isinstance(name_node, ast.Name) and isinstance(name_node.ctx, ast.Load)):
                continue
            name = name_node.id
            if name not in changed or name in local or name in reported:
                continue
            reported.add(name)
            lines = ", ".join(str(line) for line in sorted(set(changed[name])))
            diagnostics.append(
                _diagnostic(
                    path,
                    index.node_range(name_node),
                    "warning",
                    "frozen-global",
                    f"'{name}' is read as the value it has when '{function.name}' compiles; the module assigns "
                    f"it on lines {lines}, and later values are not seen by compiled code.",
                    function,
                    signatures[0].text,
                )
            )
    return diagnostics


def surprises(result: FileResult, index: SourceIndex) -> list[Diagnostic]:
    """Warnings for code of `result` that compiles but does not do what it reads as."""
    found: list[Diagnostic] = []
    functions = [f for f in result.functions if f.path == result.path]
    for function in functions:
        found += _float_format(result.path, function, index)
        found += _bool_invert(result.path, function, index)
    found += _frozen_globals(result.path, functions, index)
    return found


# -------------------------------------------------------------------------------------- type hints


def _loop_lines(node: ast.AST) -> set[int]:
    """1-based lines inside the bodies of the loops of a function."""
    lines: set[int] = set()
    for loop in ast.walk(node):
        if isinstance(loop, ast.For | ast.While):
            for statement in loop.body:
                lines.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    return lines


def _tuple_items(text: str) -> list[str] | None:
    if not text.startswith("Tuple(") or not text.endswith(")"):
        return None
    items, depth, current = [], 0, ""
    for char in text[len("Tuple(") : -1]:
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
            continue
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        current += char
    if current.strip():
        items.append(current.strip())
    return items


def type_hints(result: FileResult, source: str) -> list[Diagnostic]:
    """Hint-severity diagnostics on type instability, one per (line, code, variable)."""
    index = SourceIndex.parse(source)
    hints: dict[tuple[int, str, str], Diagnostic] = {}

    def add(
        function: FunctionInfo, signature: SignatureResult, code: str, name: str, line: int, message: str
    ) -> None:
        node = _function_node(index, function)
        range_ = index.variable_range(name, line, node) or index.line_range(line)
        key = (range_.start.line, code, name)
        if key not in hints:
            hints[key] = _diagnostic(result.path, range_, "hint", code, message, function, signature.text)

    for function in result.functions:
        if function.path != result.path:
            continue
        node = _function_node(index, function)
        loops = _loop_lines(node) if node is not None else set()
        for signature in _signatures(function):
            by_name: dict[str, list[tuple[str, int, bool, str | None]]] = {}
            for variable in signature.variables:
                by_name.setdefault(variable.name, []).append(
                    (variable.type, variable.line, variable.phi, variable.literal)
                )
                ty, name = variable.type, variable.name
                if ty.startswith(("OptionalType(", "Optional(")):
                    add(
                        function,
                        signature,
                        "type-optional",
                        name,
                        variable.line,
                        f"'{name}' may be None here: its type is {ty}.",
                    )
                elif "pyobject" in ty:
                    add(
                        function,
                        signature,
                        "type-object",
                        name,
                        variable.line,
                        f"'{name}' is a Python object ({ty}) to compiled code.",
                    )
                elif ty.startswith(("reflected list(", "reflected set(")):
                    add(
                        function,
                        signature,
                        "type-reflected",
                        name,
                        variable.line,
                        f"'{name}' is a {ty.split('<')[0]}: converted on every call and copied back after it.",
                    )
                elif re.match(r"^array\(.*, A\)$", ty) and (
                    in_loop := sorted(set(variable.used_lines) & loops)
                ):
                    add(
                        function,
                        signature,
                        "type-layout",
                        name,
                        in_loop[0],
                        f"'{name}' is {ty} ('A': any layout) and is indexed in a loop; a C-contiguous array "
                        "(float64[::1]) lets the loop vectorise.",
                    )
                items = _tuple_items(ty)
                if items and len(set(items)) > 1 and node is not None and _indexed_by_variable(node, name):
                    add(
                        function,
                        signature,
                        "type-mixed-tuple",
                        name,
                        variable.line,
                        f"'{name}' is {ty}: items of different types, indexed with a variable.",
                    )
            for name, versions in by_name.items():
                assigned_int = [
                    (line, literal)
                    for ty, line, phi, literal in versions
                    if not phi and _INT.match(ty) and not name.startswith("$")
                ]
                # promoted: a float merge (phi) of versions one of which was assigned an int
                floats = [ty for ty, _line, phi, _literal in versions if phi and _FLOAT.match(ty)]
                if assigned_int and floats:
                    line, literal = assigned_int[0]
                    value = re.search(r"\]\((.*)\)$", literal or "")
                    start = f" ({value.group(1)})" if value else ""
                    add(
                        function,
                        signature,
                        "type-promotion",
                        name,
                        line,
                        f"'{name}' starts as an integer{start} and becomes {floats[0]} later: Numba types it "
                        f"{floats[0]} on every path.",
                    )
    return sorted(hints.values(), key=lambda d: (d.range.start.line, d.range.start.character, d.code))


def _indexed_by_variable(node: ast.AST, name: str) -> bool:
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Subscript)
            and isinstance(sub.value, ast.Name)
            and sub.value.id == name
            and not isinstance(sub.slice, ast.Constant)
        ):
            return True
    return False


# ---------------------------------------------------------------------------------- parallel report


_ARRAY_OPERATORS = {" mul ": " * ", " add ": " + ", " sub ": " - ", " truediv ": " / ", " pow ": " ** "}


def _readable(what: str) -> str:
    for name, symbol in _ARRAY_OPERATORS.items():
        what = what.replace(name, symbol)
    return what


def _named(name: str) -> str:
    return name if name == "an array" else f"'{name}'"


def parallel_loops(facts: list[ParforFact], def_line: int, index: SourceIndex) -> list[ParallelLoop]:
    """The parallel regions Numba made (fused regions folded into the first), and the function's other
    loops with why they run serially."""
    loops: list[ParallelLoop] = []
    parallel_lines: set[int] = set()
    for fact in facts:
        notes = [
            f"line {line}: {what} runs serially inside this region (nested)" for line, what in fact.serial
        ]
        notes += [f"not fused with line {line}: {reason}" for line, reason in fact.not_fused]
        notes += [
            f"line {line}: the allocation of {_named(name)} is hoisted out of the loop (once per thread, not per iteration)"
            for line, name in sorted(set(fact.hoisted))
        ]
        notes += [
            f"line {line}: the allocation of {_named(name)} stays in the loop ({'it depends on the iteration' if reason == 'dependency' else reason})"
            for line, name, reason in sorted(set(fact.not_hoisted))
        ]
        loops.append(
            ParallelLoop(
                fact.line,
                True,
                _readable(fact.what),
                [f"line {line}: {_readable(what)}" for line, what in fact.fused],
                notes,
            )
        )
        parallel_lines.add(fact.line)
        parallel_lines.update(line for line, _what in fact.fused)
        for line, what in fact.fused:
            if line != fact.line:
                loops.append(
                    ParallelLoop(
                        line,
                        True,
                        _readable(what),
                        [],
                        [f"fused into the parallel region of line {fact.line}"],
                    )
                )
    serial_lines = {line: fact.line for fact in facts for line, _what in fact.serial}
    node = index.function_node(def_line)
    if node is not None:
        for loop in ast.walk(node):
            if not isinstance(loop, ast.For | ast.While) or loop.lineno in parallel_lines:
                continue
            if loop.lineno in serial_lines:
                note = f"nested in the parallel region of line {serial_lines[loop.lineno]}: runs serially inside it"
                what = "prange loop"
            elif isinstance(loop, ast.While):
                what, note = (
                    "while loop",
                    "runs serially: only prange loops and array expressions become parallel",
                )
            else:
                called = loop.iter.func if isinstance(loop.iter, ast.Call) else None
                name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", None)
                what = f"{name} loop" if name else "for loop"
                note = (
                    "runs serially: not a parallel region (Numba found it unsafe or unsupported to parallelise)"
                    if name == "prange"
                    else "runs serially: only prange loops become parallel (use numba.prange if the iterations are independent)"
                )
            loops.append(ParallelLoop(loop.lineno, False, what, [], [note]))
    return sorted(loops, key=lambda loop: loop.line)
