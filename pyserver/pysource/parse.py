"""One bounded parse cache per process: ASTs are heavy (a 10,000-line module's is tens of MB), so only
the few in use are kept."""

from __future__ import annotations

import ast

from pyserver.caches import BoundedCache, bounded_cache

PARSE_CACHE_SIZE = 6

_trees: BoundedCache[tuple[str, str], ast.Module] = bounded_cache("pysource.parse", PARSE_CACHE_SIZE)


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """ast.parse(source, filename), the same tree for the same text while it is cached. Raises what
    ast.parse raises (nothing is cached then). The tree is shared: never change it."""
    key = (source, filename)
    tree = _trees.get(key)
    if tree is None:
        tree = ast.parse(source, filename)
        _trees[key] = tree
    return tree
