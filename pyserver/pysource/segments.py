"""`ast.get_source_segment` with the source's lines split once per source text, not once per node (on a
large file, splitting it again for each of hundreds of decorator arguments cost seconds)."""

from __future__ import annotations

import ast
import functools
import re

# The line breaks ast.get_source_segment splits at, each kept with its line (not form feeds and the
# other breaks str.splitlines knows).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


@functools.lru_cache(maxsize=8)
def _lines(source: str) -> tuple[str, ...]:
    return tuple(_LINE.findall(source))


def source_segment(source: str, node: ast.AST) -> str | None:
    """The same text as `ast.get_source_segment(source, node)`."""
    try:
        if node.end_lineno is None or node.end_col_offset is None:  # type: ignore[attr-defined]
            return None
        first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
        start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
    except AttributeError:
        return None
    lines = _lines(source)
    if last == first:
        return lines[first].encode()[start:end].decode()
    head = lines[first].encode()[start:].decode()
    tail = lines[last].encode()[:end].decode()
    return "".join([head, *lines[first + 1 : last], tail])
