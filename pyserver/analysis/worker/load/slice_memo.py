"""The definitions-only slice of a file, remembered across its analyses: an edit that changes only the
body of a jitted function (not what its `def` evaluates, not the names its body reads) leaves the
slice as it was, with the edited `def` in its place. That is the usual edit of a notebook cell or of
one function; anything else slices again (toplevel_slice).

Why the slice cannot change then: the slice reads a jitted function's body only for the names it reads
(kept in the key), its `global` statements, its imports and its nested definitions (a body with any of
those is keyed by its node: any change slices again). Every other statement is keyed by its node, which
incremental parsing keeps while the statement's text and place do not change.
"""

from __future__ import annotations

import ast
import copy
import re
import weakref
from dataclasses import dataclass
from typing import Any

from pyserver.analysis.worker.load import names, toplevel_slice
from pyserver.analysis.worker.load.decorated import is_decorated
from pyserver.caches import BoundedCache, bounded_cache

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the line breaks Python counts (str.splitlines has more)
# What in a function's body the slice looks at beyond the names it reads.
_SLICED_IN_BODIES = (
    ast.Global,
    ast.Nonlocal,
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
)


@dataclass(frozen=True)
class _Remembered:
    key: tuple[Any, ...]
    # the kept statements: (index in the module's body, the trimmed copy the slice made, or None)
    kept: tuple[tuple[int, ast.stmt | None], ...]
    sliced: toplevel_slice.TopLevelSlice


_LAST: BoundedCache[str, _Remembered] = bounded_cache("slice_memo.last", 32)  # file -> its last slice
_PLAIN_BODY: weakref.WeakKeyDictionary[ast.stmt, bool] = weakref.WeakKeyDictionary()
_DEF_KEYS: weakref.WeakKeyDictionary[ast.stmt, tuple[Any, ...]] = weakref.WeakKeyDictionary()


def _plain_body(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    found = _PLAIN_BODY.get(node)
    if found is None:
        found = _PLAIN_BODY[node] = not any(
            isinstance(inner, _SLICED_IN_BODIES) for inner in names.walk(node.body)
        )
    return found


def _statement_key(node: ast.stmt, lines: list[str]) -> tuple[Any, ...]:
    place = (node.lineno, node.end_lineno, node.col_offset, node.end_col_offset)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and is_decorated(node) and _plain_body(node):
        # A node is one text at one place (incremental parsing keeps it only so): its key once.
        found = _DEF_KEYS.get(node)
        if found is None:
            header = copy.copy(node)
            header.body = []
            reads, later_reads = toplevel_slice.definition_names(node, lines)
            found = _DEF_KEYS[node] = (
                "def",
                *place,
                ast.dump(header),
                frozenset(reads),
                frozenset(later_reads),
            )
        return found
    return (node, *place)  # the node itself: compared by identity


def remembered_slice(path: str, tree: ast.Module, source: str) -> toplevel_slice.TopLevelSlice:
    """`toplevel_slice.slice_module(tree, source=source)`, from the last slice of `path` when only jitted
    functions' bodies changed since. The caller may change what it gets (its `skipped` list)."""
    lines = _LINE_BREAK.split(source)
    key = tuple(_statement_key(node, lines) for node in tree.body)
    last = _LAST.get(path)
    if last is None or last.key != key:
        sliced = toplevel_slice.slice_module(tree, source=source)
        last = _LAST[path] = _Remembered(key, _kept_places(tree, sliced), _copy(sliced, sliced.tree.body))
    body = [tree.body[index] if trimmed is None else trimmed for index, trimmed in last.kept]
    return _copy(last.sliced, body)


def _kept_places(
    tree: ast.Module, sliced: toplevel_slice.TopLevelSlice
) -> tuple[tuple[int, ast.stmt | None], ...]:
    """Where each kept statement is in the module's body (the slice keeps their order); a statement the
    slice trimmed (an `if` or `try` with some of its block left out) is a copy, kept as it is."""
    places: list[tuple[int, ast.stmt | None]] = []
    index = 0
    for statement in sliced.tree.body:
        while tree.body[index] is not statement and (
            type(tree.body[index]) is not type(statement)
            or (tree.body[index].lineno, tree.body[index].col_offset)
            != (statement.lineno, statement.col_offset)
        ):
            index += 1
        places.append((index, None if tree.body[index] is statement else statement))
        index += 1
    return tuple(places)


def _copy(sliced: toplevel_slice.TopLevelSlice, body: list[ast.stmt]) -> toplevel_slice.TopLevelSlice:
    return toplevel_slice.TopLevelSlice(
        ast.Module(body=body, type_ignores=[]),
        list(sliced.skipped),
        sliced.future_flags,
        dict(sliced.unavailable),
    )
