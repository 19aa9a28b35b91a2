"""Source "python-caller": the faster AST helpers of slicing give exactly what the plain ones gave."""

from __future__ import annotations

import ast
import textwrap

from pyserver.analysis.call_index import ast_nodes
from pyserver.analysis.caller_slices import Simple, close, close_by_name, flatten

SOURCE = textwrap.dedent(
    """
    import numpy as np

    N = 8
    SCALE = N * 2.0
    grid = np.ones((N, N)) * SCALE
    unused = grid.sum()


    def helper(x):
        return [v * 2 for v in x] + [lambda y: y]


    class Box:
        size = N

    try:
        extra = np.zeros(N)
    except ValueError as error:
        extra = None
    for i in range(N):
        if i % 2:
            grid[i] = i
    with open(__file__) as handle:
        text = handle.read()
    """
)


def test_ast_nodes_is_ast_walk_as_a_list() -> None:
    tree = ast.parse(SOURCE)
    for root in [tree, *tree.body]:
        assert [id(n) for n in ast_nodes(root)] == [id(n) for n in ast.walk(root)]


def test_close_by_name_reaches_the_same_statements_as_close() -> None:
    tree = ast.parse(SOURCE)
    simple: list[Simple] = []
    flatten(tree.body, (), simple)
    by_name: dict[str, list[Simple]] = {}
    for s in simple:
        for name in s.defines | s.opaque:
            by_name.setdefault(name, []).append(s)
    for start in [{"grid"}, {"SCALE"}, {"extra", "text"}, {"helper", "Box"}, {"nothing"}, set()]:
        needed, kept = set(start), set()
        close(simple, needed, kept)
        needed_by_name, kept_by_name = set(start), set()
        close_by_name(by_name, needed_by_name, kept_by_name)
        assert (needed_by_name, kept_by_name) == (needed, kept), start
