"""What the parent answers without the worker: the file's text, an `analysis-failed` result (or the
`analysis-time-out` warning of a module whose typing took too long), the jitted
functions found in the source alone, and the facts about a module that decide whether the worker may
execute it again (its import-time code, its use of Numba's extension API)."""

from __future__ import annotations

import ast
import hashlib
import io
import re
import time
import tokenize
from pathlib import Path

from pyserver import pysource
from pyserver.analysis.api import find_jitted_functions
from pyserver.analysis.codes import doc_link
from pyserver.analysis.model import Diagnostic, FileResult, FunctionInfo, Range


def read_source(path: str | Path) -> str:
    """The file's text, honouring a PEP 263 coding cookie. Raises UnicodeDecodeError/SyntaxError."""
    data = Path(path).read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


def failed_result(
    path: str, message: str, line: int | None = None, full: str | None = None, status: str = "failed"
) -> FileResult:
    zero_line = max((line or 1) - 1, 0)
    diagnostic = Diagnostic(
        path=path,
        range=Range.of(zero_line, 0, zero_line, 0),
        severity="error",
        code="analysis-failed",
        message=message,
        fullMessage=full,
        codeDescription=doc_link("analysis-failed"),
    )
    return FileResult(path=path, diagnostics=[diagnostic], status=status)


def import_time_fingerprint(source: str) -> str | None:
    """A digest of the code that runs when the module is imported (not function bodies); None if unparsable."""
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError):
        return None
    parts = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            # A `def` runs its decorators, defaults and annotations at import, not its body.
            runs = [*node.decorator_list, node.args, *([node.returns] if node.returns else [])]
            parts.append("def " + "".join(ast.dump(part) for part in runs))
        else:
            parts.append(ast.dump(node))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


# Numba's extension API registers globally (typing templates, lowerings): a second exec of a module that
# uses it adds to, and cannot replace, what the first registered.
_EXTENSION_API = {
    "overload",
    "overload_method",
    "overload_attribute",
    "overload_classmethod",
    "register_jitable",
    "intrinsic",
    "type_callable",
    "lower_builtin",
    "lower_getattr",
    "typeof_impl",
    "register_model",
    "make_attribute_wrapper",
    "infer_global",
    "infer_getattr",
}


# Every name extends_numba looks for: text with none of them (and only ASCII, so that no identifier
# normalises into one) cannot use the extension API, and is not parsed.
_EXTENSION_WORDS = re.compile("|".join(["extending", *sorted(_EXTENSION_API)]))


def extends_numba(source: str) -> bool:
    """Does the module use Numba's extension API (so that re-executing it in one process goes stale)?"""
    if source.isascii() and _EXTENSION_WORDS.search(source) is None:
        return False
    try:
        tree = pysource.parse(source)
    except (SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("numba"):
            if "extending" in node.module or any(alias.name in _EXTENSION_API for alias in node.names):
                return True
        if isinstance(node, ast.Attribute) and node.attr in _EXTENSION_API:
            base = node.value
            if isinstance(base, ast.Attribute | ast.Name) and ast.unparse(base).split(".")[-1] in (
                "extending",
                "numba",
            ):
                return True
    return False


def line_range(source: str | None, line: int) -> Range:
    lines = (source or "").splitlines()
    if 1 <= line <= len(lines):
        text = lines[line - 1]
        start = len(text) - len(text.lstrip())
        return Range.of(line - 1, start, line - 1, len(text.rstrip()))
    return Range.of(max(line - 1, 0), 0, max(line - 1, 0), 0)


def functions_from_ast(path: str, source: str | None) -> list[FunctionInfo]:
    if source is None:
        return []
    try:
        found = find_jitted_functions(source, path)
    except (SyntaxError, ValueError):
        return []
    return [
        FunctionInfo(
            path=path,
            name=f.name,
            line=f.def_line,
            end_line=f.end_line,
            decorator_line=f.decorator_line,
            kind=f.kind,
            options={k: v for k, v in f.options.items() if isinstance(v, bool | int | float | str)},
            params=f.params,
        )
        for f in found
    ]


def typing_time_out(path: str, source: str, timeout_s: float, progress: str, started: float) -> FileResult:
    """The module loaded, and typing its functions took longer than the time-out: not an error in the code.
    A warning says where it stopped; the functions are listed unchecked."""
    doing = progress.removeprefix("typing ")
    where = f"while typing `{doing}`" if doing != progress else "before typing its first function"
    functions = functions_from_ast(path, source)
    name = doing.partition("(")[0]
    line = next((f.line - 1 for f in functions if f.name == name), 0)  # on the function it was typing
    diagnostic = Diagnostic(
        path=path,
        range=Range.of(line, 0, line, 0),
        severity="warning",
        code="analysis-time-out",
        message=(
            f"The module loaded, and typing its functions took longer than the time-out ({timeout_s:g} s): "
            f"the analysis stopped {where}, so its functions were not checked. Raise the time-out "
            "(numbaLens.timeout, `check --timeout S`) to check them."
        ),
        codeDescription=doc_link("analysis-time-out"),
    )
    result = FileResult(path=path, diagnostics=[diagnostic], functions=functions, status="failed")
    result.elapsed_ms = (time.perf_counter() - started) * 1000.0
    return result
