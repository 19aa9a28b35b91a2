"""The typings of Python callers kept across analyses (python_callers.py): after an edit, a caller whose
code and whose globals are unchanged gives its calls' argument types without being sliced and typed
again. A notebook's top level is one caller of every cell: a one-cell edit of a jitted function leaves
the other cells' calls as they were.

What decides a caller's outcomes, and so its key:
- its statements: the module's top-level statements by node (incremental parsing keeps an unchanged
  statement's node, at its place), but a top-level jitted `def` by its place and header only (decorators,
  parameters, defaults): a caller's slice never holds a jitted function's body, and calls in that body
  are no Python calls; a function caller's own node too;
- the file's facts the slice reads (its imports, jitted names, classes, defs, aliases, whether it holds
  `:=`) and the calls typed (their names and places);
- the value of every global the typing read (what `_globals` looked up), by the same fingerprints the
  slice cache keys on (a jitted function's includes its source): checked again on every reuse.
A caller whose parameters were typed from its own callers (depth) is not kept: those are other callers'.
"""

from __future__ import annotations

import ast
import copy
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyserver.analysis.worker.signatures.indexed_file import CallSite, IndexedFile, Scope
from pyserver.caches import BoundedCache, bounded_cache

# (call's first line, column, last line, end column) -> what typing that call gave
Place = tuple[int, int, int, int]
# (file, global name, fingerprint of its value or why it has none)
GlobalRead = tuple[str, str, str]

_HEADERS: weakref.WeakKeyDictionary[ast.stmt, str] = weakref.WeakKeyDictionary()


def _header(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """A `def` without its body, as text (once per node)."""
    found = _HEADERS.get(node)
    if found is None:
        header = copy.copy(node)
        header.body = []
        found = _HEADERS[node] = ast.dump(header)  # the places of calls in it are the sites' own
    return found


def place(call: ast.expr) -> Place:
    return (call.lineno, call.col_offset, call.end_lineno or call.lineno, call.end_col_offset or 0)


def statements_key(indexed: IndexedFile) -> tuple[Any, ...]:
    """The module's top-level statements as a caller's slice reads them (see the module docstring)."""
    jitted = {name for name in indexed.jitted if "." not in name}
    found: list[Any] = []
    for node in indexed.tree.body:
        where = (node.lineno, node.col_offset, node.end_lineno)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in jitted:
            found.append(("jitted-def", where, _header(node)))  # where its body's last line ends: no matter
        else:
            found.append((node, where, node.end_col_offset))  # the node itself: compared by identity
    return tuple(found)


def scope_key(
    indexed: IndexedFile, scope: Scope, sites: list[CallSite], depth: int, method: str
) -> tuple[Any, ...]:
    facts = (
        tuple(sorted(indexed.imports.items())),
        tuple(sorted(indexed.jitted)),
        tuple(sorted(indexed.top_level_defs)),
        tuple(sorted(indexed.top_level_classes)),
        tuple(sorted(indexed.jit_aliases.items())),
        tuple(sorted((name, tuple(spans)) for name, spans in indexed.jit_alias_spans.items())),
        tuple(sorted(indexed.jit_made.items())),
        indexed.has_walrus,
    )
    calls = tuple(
        (
            site.name,
            place(site.call),
            site.receiver,
            None if site.anchor is None else (site.anchor.lineno, site.anchor.col_offset),
        )
        for site in sites
    )
    own = None if scope.qualname == "<module>" else scope.node
    return (scope.path, scope.qualname, depth, method, own, statements_key(indexed), facts, calls)


@dataclass(frozen=True)
class KeptTyping:
    reads: tuple[GlobalRead, ...]
    outcomes: dict[Place, list[Any]]


class CallerMemo:
    """Callers' outcomes by scope_key, each reused while the globals it read are unchanged."""

    def __init__(self, limit: int = 256) -> None:
        self._kept: BoundedCache[tuple[Any, ...], KeptTyping] = bounded_cache("python_callers.kept", limit)
        self.reused = 0  # callers given their kept outcomes (for tests and benchmarks)

    def get(
        self, key: tuple[Any, ...], read_again: Callable[[str, str], str]
    ) -> dict[Place, list[Any]] | None:
        """The kept outcomes, if every global read then reads the same now (`read_again(file, name)`)."""
        kept = self._kept.get(key)
        if kept is None:
            return None
        if any(read_again(file, name) != value for file, name, value in kept.reads):
            return None
        self.reused += 1
        return kept.outcomes

    def keep(self, key: tuple[Any, ...], reads: list[GlobalRead], outcomes: dict[Place, list[Any]]) -> None:
        self._kept[key] = KeptTyping(tuple(dict.fromkeys(reads)), outcomes)
