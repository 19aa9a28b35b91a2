"""Parsing an edited buffer again without parsing all of it: only the top-level statements the edit
touched are parsed; the others are the previous tree's nodes (the same objects: nothing may change them).

A Python module is a sequence of top-level statements, each starting at column 0 of its own line, and a
statement's parse does not depend on the statements around it. So when the lines that changed lie
within some top-level statements, the module parses as before with those statements replaced by the
parse of their new lines alone. Where that could be untrue the whole text is parsed:
- the new lines do not parse alone (an edit that opens a string or a bracket, starts with `else:` or an
  indented line, ends with a decorator or a `def` header): whatever they do in context, parsing all
  says it;
- `from __future__ import barry_as_FLUFL` (it changes how `!=` parses);
- the first line of the region is a continuation of a line before it (checked: a backslash at the end
  of the line before).
The lines after the region are the previous tree's when the edit kept the number of lines; otherwise they
are parsed again with the region (their line numbers changed).
"""

from __future__ import annotations

import ast
import re
import threading
from collections import OrderedDict

from pyserver import pysource

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the line breaks Python counts (str.splitlines has more)


class IncrementalParser:
    """ast.parse(source) of each file's successive texts, reusing its previous tree's unchanged statements."""

    def __init__(self, files: int = 8) -> None:
        self._last: OrderedDict[str, tuple[list[str], ast.Module]] = OrderedDict()  # path -> (lines, tree)
        self._files = files
        self._lock = threading.Lock()
        self.reused_statements = 0  # by the last parse (for tests and benchmarks)

    def parse(self, source: str, path: str) -> ast.Module:
        """The tree of `source`, as ast.parse gives it; raises what ast.parse raises."""
        lines = _LINE_BREAK.split(source)
        with self._lock:
            last = self._last.get(path)
        tree = None
        self.reused_statements = 0
        if last is not None and "barry_as_FLUFL" not in source:
            tree = self._reparse(last[0], last[1], lines)
        if tree is None:
            tree = pysource.parse(source, path)  # the one parse of this text the worker shares
        with self._lock:
            self._last[path] = (lines, tree)
            self._last.move_to_end(path)
            while len(self._last) > self._files:
                self._last.popitem(last=False)
        return tree

    def _reparse(self, old_lines: list[str], old_tree: ast.Module, lines: list[str]) -> ast.Module | None:
        if old_tree.type_ignores:
            return None
        prefix = 0
        limit = min(len(old_lines), len(lines))
        while prefix < limit and old_lines[prefix] == lines[prefix]:
            prefix += 1
        if prefix == len(old_lines) == len(lines):
            return old_tree  # the same text (line breaks aside)
        suffix = 0
        while (
            suffix < limit - prefix
            and old_lines[len(old_lines) - 1 - suffix] == lines[len(lines) - 1 - suffix]
        ):
            suffix += 1
        # 1-based lines that changed in the old text (none for an insertion: last < first). The region
        # to parse again holds every statement within a line of them (an edit next to a statement counts
        # as touching it), and every statement that shares a line with the region (`a = 1; b = [`).
        start, end_old = prefix + 1, len(old_lines) - suffix
        body = old_tree.body
        spans = [(_first_line(statement), statement.end_lineno or statement.lineno) for statement in body]
        inside = [first <= end_old + 1 and end >= start - 1 for first, end in spans]
        grown = True
        while grown:
            for index, (first, end) in enumerate(spans):
                if inside[index]:
                    start, end_old = min(start, first), max(end_old, end)
            grown = False
            for index, (first, end) in enumerate(spans):
                if not inside[index] and first <= end_old and end >= start:
                    inside[index] = grown = True
        before = [statement for statement, (_, end) in zip(body, spans, strict=True) if end < start]
        after = [statement for statement, (first, _) in zip(body, spans, strict=True) if first > end_old]
        if start > 1 and lines[start - 2].endswith("\\"):
            return None  # the region continues the line before it
        delta = len(lines) - len(old_lines)
        if delta != 0:
            after = []  # their line numbers moved: parsed again with the region
            end_new = len(lines)
        else:
            end_new = end_old
        if end_new < start:
            region: list[ast.stmt] = []  # lines deleted
        else:
            try:  # blank lines first, so that the lines are numbered as in the file
                parsed = ast.parse("\n" * (start - 1) + "\n".join(lines[start - 1 : end_new]))
            except (SyntaxError, ValueError):
                return None
            if parsed.type_ignores:
                return None
            region = parsed.body
        self.reused_statements = len(before) + len(after)
        return ast.Module(body=[*before, *region, *after], type_ignores=[])


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", None) or []
    return min([statement.lineno, *(d.lineno for d in decorators)])
