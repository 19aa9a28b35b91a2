"""The kept top-level statements of a module as code objects to run, one per statement, reused while the
statement's text and place do not change."""

from __future__ import annotations

import ast
import re
import types
from typing import Any

from pyserver import pysource
from pyserver.analysis.model import SkippedStatement
from pyserver.analysis.worker.discover import discovery
from pyserver.analysis.worker.load import load_errors, toplevel_slice, unavailable
from pyserver.caches import BoundedCache, bounded_cache


def statement_codes(
    sliced: toplevel_slice.TopLevelSlice,
    path: str,
    skip_lines: set[int],
    skipped: list[SkippedStatement],
    missing: set[str],
) -> list[tuple[ast.stmt | None, Any]]:
    """One code object per kept top-level statement, so that one that fails does not stop the rest. A
    statement (not a def or class) holding a line where the last load hung or crashed is left out."""
    codes: list[tuple[ast.stmt | None, Any]] = []
    for statement in sliced.tree.body:
        end = statement.end_lineno or statement.lineno
        definition = isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        if not definition and any(statement.lineno <= line <= end for line in skip_lines):
            reason = "it did not finish when it last ran (a time-out or a crash)"
            skipped.append(SkippedStatement(statement.lineno, end, reason))
            missing |= toplevel_slice.bound_names(statement)
            continue
        codes.append((statement, statement_code(statement, path, sliced.future_flags)))
    return codes


def statement_code(statement: ast.stmt, path: str, future_flags: int) -> types.CodeType:
    """One top-level statement compiled alone, as a module of its own."""
    chunk = ast.Module(body=[statement], type_ignores=[])
    return compile(chunk, path, "exec", flags=future_flags, dont_inherit=True)


# (file, flags, first line, column, last line, end column, the statement's lines) -> its code object: a
# statement is compiled again only when its text or its place changed.
_STATEMENT_CODES: BoundedCache[tuple[Any, ...], types.CodeType] = bounded_cache(
    "loader.statement_codes", 4096
)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the line breaks Python counts (str.splitlines has more)


def module_codes(
    sliced: toplevel_slice.TopLevelSlice,
    path: str,
    source: str,
    original: set[int],
    ran: list[ast.stmt] | None = None,
) -> list[tuple[ast.stmt | None, Any]]:
    """The kept module as code objects to run in order, a failure stopping the rest as in one module:
    one per top-level statement, those of unchanged statements reused (an edit compiles what it
    touched). Run so, they do what the module compiled whole does (its docstring, annotations and
    `__future__` flags included); where that could differ, the module is compiled whole. `original`:
    the ids of the parsed tree's statements (a statement the slice trimmed is a copy: not reused).
    `ran`: gets the statement of each code, when there is one code per statement."""
    body = sliced.tree.body

    def whole() -> list[tuple[ast.stmt | None, Any]]:
        return [(None, compile(sliced.tree, path, "exec", flags=sliced.future_flags, dont_inherit=True))]

    leading = 1 if body and _is_docstring(body[0]) else 0
    while leading < len(body) and _is_future_import(body[leading]):
        leading += 1
    if (
        not original
        or any(_is_future_import(statement) for statement in body[leading:])
        or any(isinstance(statement, ast.Global) for statement in discovery.statements_shallow(body))
    ):
        return whole()  # a misplaced `from __future__`, a module-level `global`: checked across statements
    lines = _LINE_BREAK.split(source)
    codes: list[tuple[ast.stmt | None, Any]] = []
    try:
        for position, statement in enumerate(body):
            if position > 0 and _is_docstring(statement):
                continue  # a string statement after the first is no docstring: it does nothing
            codes.append((None, _statement_code(statement, path, sliced.future_flags, lines, original)))
            if ran is not None:
                ran.append(statement)
    except Exception:  # a SyntaxError found at compile time (`return` outside a function): as Python says it
        if ran is not None:
            ran.clear()
        return whole()
    return codes


def _statement_code(
    statement: ast.stmt, path: str, flags: int, lines: list[str], original: set[int]
) -> types.CodeType:
    decorators = getattr(statement, "decorator_list", None) or []
    first = min([statement.lineno, *(d.lineno for d in decorators)])
    end = statement.end_lineno
    if id(statement) not in original or end is None or end > len(lines):
        return statement_code(statement, path, flags)
    text = "\n".join(lines[first - 1 : end])
    key = (path, flags, first, statement.col_offset, end, statement.end_col_offset, text)
    code = _STATEMENT_CODES.get(key)
    if code is None:
        code = _STATEMENT_CODES[key] = statement_code(statement, path, flags)
    return code


# file -> the text last imported, its definitions-only slice, the parsed tree (held so that the call
# index, parsing the same text later, gets it from pysource.parse) and the slice's code: a module imported
# again (its package forgotten, or a failing import retried by each analysis) is not parsed, sliced or
# compiled again. The slice is a pure function of the text; one text per file is kept (a large module's
# tree is tens of MB, and the editor changes it save after save).
_IMPORTED: BoundedCache[str, tuple[str, toplevel_slice.TopLevelSlice, ast.Module, types.CodeType]] = (
    bounded_cache("loader.imported_slices", 256)
)


def imported_code(text: str, path: str) -> tuple[toplevel_slice.TopLevelSlice, types.CodeType] | None:
    """What a workspace import of the file at `path` runs under definitions-only loading, and its code:
    its assignments kept (they are what other modules import), its calls, loops and `__main__` block left
    out. None when the text does not parse."""
    kept = _IMPORTED.get(path)
    if kept is None or kept[0] != text:
        try:
            tree = pysource.parse(text, path)  # shared with the call index and the file's analysis
        except SyntaxError:
            return None
        sliced = toplevel_slice.slice_module(tree, keep_assignments=True, source=text)
        code = compile(sliced.tree, path, "exec", flags=sliced.future_flags, dont_inherit=True)
        kept = _IMPORTED[path] = (text, sliced, tree, code)
    sliced = kept[1]
    # The caller may change its lists; the tree is only read.
    handed_out = toplevel_slice.TopLevelSlice(
        sliced.tree, list(sliced.skipped), sliced.future_flags, dict(sliced.unavailable)
    )
    return handed_out, kept[3]


def run_imported(
    module: types.ModuleType, code: types.CodeType, sliced: toplevel_slice.TopLevelSlice
) -> None:
    """Run an imported module's definitions-only code. A statement that reads a name another module could
    not define does not run, as in the analysed module itself, and the module goes on from the next
    statement: the names it would bind have no value either (in `sliced.unavailable`, and bound to an
    UnavailableName, so that a later statement reading one is left out the same way rather than failing
    the whole import). The module runs as one code, as Python compiles it (CPython's bytecode for
    `np.empty(n)` depends on `np` being imported in the same code: the IR Numba builds from it, and the
    names of its temporaries, are the program's); only what follows such a statement runs one statement
    at a time."""
    namespace, path = module.__dict__, code.co_filename
    body = sliced.tree.body
    try:
        exec(code, namespace)
        return
    except unavailable.NameUnavailableError as exc:
        position = top_level_position(body, load_errors.line_in(exc, path))
        if position is None:
            raise
        _leave_out(module, body[position], exc, sliced)
    for statement in body[position + 1 :]:
        try:
            exec(statement_code(statement, path, sliced.future_flags), namespace)
        except unavailable.NameUnavailableError as exc:
            _leave_out(module, statement, exc, sliced)


def top_level_position(body: list[ast.stmt], line: int | None) -> int | None:
    """The position in `body` of the top-level statement that holds `line` (a traceback's), a `def`'s or
    class's decorators counted as its lines; None when none does."""
    for position, statement in enumerate(body):
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", []))])
        if line is not None and first <= line <= (statement.end_lineno or statement.lineno):
            return position
    return None


def _leave_out(
    module: types.ModuleType,
    statement: ast.stmt,
    exc: unavailable.NameUnavailableError,
    sliced: toplevel_slice.TopLevelSlice,
) -> None:
    reason = exc.reason_for_reader(statement.lineno)
    for name in toplevel_slice.bound_names(statement):
        sliced.unavailable[name] = reason
        module.__dict__[name] = unavailable.UnavailableName(module.__name__, name, reason)
    end = statement.end_lineno or statement.lineno
    sliced.skipped.append(SkippedStatement(statement.lineno, end, exc.why_skipped()))


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _is_future_import(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.ImportFrom) and statement.module == "__future__"


def annotates(body: list[ast.stmt]) -> bool:
    """Does the module's own code (not its defs or classes) hold an annotated assignment? (CPython's
    find_ann: the module then starts by making `__annotations__`.)"""
    return any(isinstance(statement, ast.AnnAssign) for statement in discovery.statements_shallow(body))
