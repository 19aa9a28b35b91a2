"""Source "python-caller": the faster AST helpers of slicing give exactly what the plain ones gave."""

from __future__ import annotations

import ast
import textwrap

from pyserver.analysis.worker.signatures.caller_slices import Simple, close, close_by_name, flatten
from pyserver.analysis.worker.signatures.indexed_file import ast_nodes

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


def test_an_edited_buffer_is_indexed_as_a_fresh_parse_would(tmp_path) -> None:
    from pyserver.analysis.worker.signatures.call_index import CallIndex

    first = textwrap.dedent(
        """
        from numba import njit


        @njit
        def kernel(x):
            return x


        def keep():
            kernel(1)


        def edit():
            kernel(2)
        """
    )
    edited = first.replace("    kernel(2)\n", "    value = 3\n    kernel(value)\n")
    path = tmp_path / "buffer.py"
    path.write_text(first)
    index = CallIndex(str(tmp_path))
    index.refresh(str(path), first)
    kept_node = index.files[str(path.resolve())].scopes["keep"].node
    index.refresh(str(path), edited)
    fresh = CallIndex(str(tmp_path))
    path.write_text(edited)
    fresh.refresh()

    def calls(ix: CallIndex) -> list[tuple[str, int, str]]:
        return [
            (s.scope.qualname, s.call.lineno, ast.unparse(s.call)) for s in ix.calls_to(str(path), "kernel")
        ]

    assert calls(index) == calls(fresh) == [("keep", 11, "kernel(1)"), ("edit", 16, "kernel(value)")]
    # The unchanged caller is the same node: what is kept per node for it (its flattened statements) holds.
    assert index.files[str(path.resolve())].scopes["keep"].node is kept_node
