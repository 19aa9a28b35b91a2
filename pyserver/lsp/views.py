"""The last analysis of a document, seen through the current text of that document.

Hover, inlay hints and code lenses answer from the last completed analysis while the user keeps
typing. A function whose text is unchanged since that analysis keeps its types (shifted by the lines
inserted above it); a changed function has none until it is analysed again, so nothing shown is
about code that no longer exists.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from pyserver import pysource
from pyserver.analysis.api import (
    JitFunction,
    find_jitted_functions_in_tree,
    with_analysed,
)
from pyserver.analysis.model import Diagnostic, FileResult, FunctionInfo
from pyserver.lsp.text import split_lines

ViewState = Literal["current", "shifted", "changed", "not-analysed"]


# ASTs are heavy (a 10,000-line module's is tens of MB): keep only the few in use.
def parse_module(source: str) -> ast.Module | None:
    try:
        return pysource.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


@lru_cache(maxsize=16)
def discover(source: str) -> tuple[JitFunction, ...]:
    """Jitted functions of `source`; none while the text does not parse (mid-edit)."""
    tree = parse_module(source)
    if tree is None:
        return ()
    try:
        return tuple(find_jitted_functions_in_tree(tree, source))  # the tree is shared: parse once
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ()


@lru_cache(maxsize=16)
def cached_lines(source: str) -> list[str]:
    return split_lines(source)


def first_line(function: JitFunction) -> int:
    """1-based first line that belongs to the function's text (its jit decorator, or its def)."""
    if function.kind == "jitclass-method":
        return function.def_line
    return min(function.decorator_line, function.def_line)


def function_text(lines: list[str], function: JitFunction) -> list[str]:
    return lines[first_line(function) - 1 : function.end_line]


@dataclass
class AnalysedDocument:
    """A completed analysis and the exact text it analysed."""

    uri: str
    path: str
    source: str
    version: int | None
    result: FileResult
    _functions: tuple[JitFunction, ...] | None = field(default=None, repr=False, compare=False)

    @property
    def functions(self) -> tuple[JitFunction, ...]:
        """The functions of the analysed text, with those found because Numba created them (call forms,
        ...). Found on first use, not before the diagnostics are published: parsing the buffer is work
        that hover, inlay hints and lenses need, publishing does not."""
        if self._functions is None:
            self._functions = with_analysed(discover(self.source), self.source, self.result.functions)
        return self._functions

    def info(self, name: str) -> FunctionInfo | None:
        for info in self.result.functions:
            if info.name == name:
                return info
        return None

    def diagnostics_of(self, name: str) -> list[Diagnostic]:
        return [d for d in self.result.diagnostics if d.function == name]


@dataclass
class FunctionView:
    current: JitFunction  # as found in the current text
    state: ViewState
    info: FunctionInfo | None = None  # set for "current" and "shifted"
    analysed: JitFunction | None = None
    offset: int = 0  # analysed line = current line + offset
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return self.info is not None

    def to_analysed(self, line: int) -> int:
        return line + self.offset

    def to_current(self, line: int) -> int:
        return line - self.offset


def function_views(current_source: str, analysed: AnalysedDocument | None) -> list[FunctionView]:
    current_functions = discover(current_source)
    if analysed is None:
        return [FunctionView(function, "not-analysed") for function in current_functions]
    current_functions = with_analysed(current_functions, current_source, analysed.result.functions)
    current_lines = cached_lines(current_source)
    analysed_lines = cached_lines(analysed.source)
    same_text = current_source == analysed.source
    by_name = {function.name: function for function in analysed.functions}
    views = []
    for function in current_functions:
        old = by_name.get(function.name)
        if old is None or function_text(current_lines, function) != function_text(analysed_lines, old):
            views.append(FunctionView(function, "changed" if old is not None else "not-analysed"))
            continue
        info = analysed.info(function.name)
        offset = first_line(old) - first_line(function)
        views.append(
            FunctionView(
                function,
                "current" if same_text else "shifted",
                info,
                old,
                offset,
                analysed.diagnostics_of(function.name),
            )
        )
    return views


def view_at(views: list[FunctionView], line: int) -> FunctionView | None:
    """The innermost function view whose text holds the 1-based `line`."""
    best: FunctionView | None = None
    for view in views:
        if first_line(view.current) <= line <= view.current.end_line:
            if best is None or first_line(view.current) >= first_line(best.current):
                best = view
    return best
