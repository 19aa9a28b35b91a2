"""One bounded parse cache per process: ASTs are heavy (a 10,000-line module's is tens of MB), so only
the few in use are kept. A tree that something else still holds (the worker's call index keeps every
workspace file's) is found again at no cost, however long ago it was parsed: the analysis of a file, its
import by another module and the call index share one parse of each text."""

from __future__ import annotations

import ast
import threading
import weakref

from pyserver.caches import BoundedCache, bounded_cache

PARSE_CACHE_SIZE = 6

_trees: BoundedCache[tuple[str, str], ast.Module] = bounded_cache("pysource.parse", PARSE_CACHE_SIZE)
# Every tree parse() gave that is still alive somewhere: an entry goes with its tree.
_alive: weakref.WeakValueDictionary[tuple[str, str], ast.Module] = weakref.WeakValueDictionary()
_alive_lock = threading.Lock()


def parsed(source: str, filename: str = "<unknown>") -> ast.Module | None:
    """The tree parse() gave for this text and filename, while it is cached or held elsewhere; else None
    (nothing is parsed)."""
    key = (source, filename)
    tree = _trees.get(key)
    if tree is None:
        with _alive_lock:
            tree = _alive.get(key)
    return tree


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """ast.parse(source, filename), the same tree for the same text and filename while it is cached or
    held elsewhere. Raises what ast.parse raises (nothing is cached then). The tree is shared: never
    change it (copy what must change)."""
    key = (source, filename)
    tree = _trees.get(key)
    if tree is None:
        with _alive_lock:
            tree = _alive.get(key)
        if tree is None:
            tree = ast.parse(source, filename)
            with _alive_lock:
                tree = _alive.setdefault(key, tree)
        _trees[key] = tree
    return tree
