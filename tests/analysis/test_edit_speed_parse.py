"""Incremental parsing (pyserver.analysis.worker.load.incremental_parse) gives exactly ast.parse's tree, positions
included, after any edit: random edits of real files, and the edits that could fool it."""

from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path

import pytest

from pyserver.analysis.worker.discover.discovery import find_jitted_functions_in_tree
from pyserver.analysis.worker.load.incremental_parse import IncrementalParser

ROOT = Path(__file__).resolve().parent.parent.parent
FILES = sorted(
    [
        *ROOT.glob("examples/*.py"),
        *ROOT.glob("bench/bench_*.py"),
        ROOT / "pyserver/analysis/worker/load/toplevel_slice.py",
    ]
)
SNIPPETS = [
    "",
    "x = 1",
    "    y = 2",
    "# a comment",
    "def g():",
    "    return 3",
    "else:",
    "@decorator",
    "z = (1 +",
    "'''",
    "a = 1; b = [",
    "]",
    "x = 1 \\",
    "if x:",
    "class C: pass",
    "import os",
    "from __future__ import annotations",
    "\tpass",
    "s = 'text'",
]


def _dump(tree: ast.AST) -> str:
    return ast.dump(tree, include_attributes=True)


def _expected(source: str) -> str | type[BaseException]:
    try:
        return _dump(ast.parse(source))
    except (SyntaxError, ValueError) as exc:
        return type(exc)


def _actual(parser: IncrementalParser, source: str) -> str | type[BaseException]:
    try:
        return _dump(parser.parse(source, "edited.py"))
    except (SyntaxError, ValueError) as exc:
        return type(exc)


def _edit(lines: list[str], rng: random.Random) -> list[str]:
    edited = list(lines)
    where = rng.randrange(len(edited) + 1)
    kind = rng.choice(["replace", "insert", "delete", "change-number", "append-text", "indent"])
    if kind == "replace" and where < len(edited):
        edited[where] = rng.choice(SNIPPETS)
    elif kind == "insert":
        edited[where:where] = [rng.choice(SNIPPETS) for _ in range(rng.randint(1, 3))]
    elif kind == "delete" and edited:
        del edited[where : where + rng.randint(1, 3)]
    elif kind == "change-number" and where < len(edited):
        edited[where] = edited[where].replace("1", "2").replace("0", "7")
    elif kind == "append-text" and where < len(edited):
        edited[where] += rng.choice([" + 1", ":", ",", " # note", "(", ")", " \\"])
    elif kind == "indent" and where < len(edited):
        edited[where] = "    " + edited[where]
    return edited


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_random_edits_parse_as_ast_parse_does(path: Path) -> None:
    rng = random.Random(path.name)
    original = path.read_text(encoding="utf-8").split("\n")
    parser = IncrementalParser()
    reused = 0
    for _round in range(60):
        lines = original
        parser.parse("\n".join(lines), "edited.py")
        for _step in range(4):  # successive edits, each against the previous text
            lines = _edit(lines, rng)
            source = "\n".join(lines)
            assert _actual(parser, source) == _expected(source)
            reused += parser.reused_statements
    assert reused > 0  # the reuse happened, not only whole parses


CASES = [
    # (before, after): edits next to statements, sharing lines, continuations, blocks that could absorb
    ("a = 1\nb = 2\n", "a = 1\nb = 3\n"),
    ("a = 1; b = [\n 2]\nc = 3\n", "a = 1; b = [\n 5]\nc = 3\n"),
    ("b = [\n 2]; c = 3\nd = 4\n", "b = [\n 9]; c = 3\nd = 4\n"),
    ("x = 1 \\\n# c\ny = 2\n", "x = 2 \\\n# c\ny = 2\n"),
    ("def f():\n    return 1\n\n# c\n", "def f():\n    return 1\n\n    x = 1\n"),
    ("def f():\n    return 1\n    # c\n", "def f():\n    return 1\n    return 2\n"),
    ("if a:\n    b = 1\nelse:\n    b = 2\n", "if a:\n    b = 1\n\nelse:\n    b = 3\n"),
    ("@d\ndef f():\n    pass\n", "@e\ndef f():\n    pass\n"),
    ("x = 1\n\ny = 2\n", "x = 1\n'''\ny = 2\n"),
    ("x = 1\n", "x = 1\n\n"),
    ("x = 1\ny = 2\n", "y = 2\n"),
    ("s = '''\nabc\n'''\nt = 1\n", "s = '''\nabd\n'''\nt = 1\n"),
    ("x = 1\r\ny = 2\r\n", "x = 1\r\ny = 5\r\n"),
    (
        "from __future__ import barry_as_FLUFL\nx = 1 <> 2\n",
        "from __future__ import barry_as_FLUFL\nx = 1 != 2\n",
    ),
    ("x = 1\n", "x = 1\x00\n"),
]


@pytest.mark.parametrize(("before", "after"), CASES)
def test_edits_that_could_fool_it(before: str, after: str) -> None:
    parser = IncrementalParser()
    assert _actual(parser, before) == _expected(before)
    assert _actual(parser, after) == _expected(after)
    assert _actual(parser, before) == _expected(before)


def test_discovery_on_reused_nodes_equals_discovery_on_a_fresh_parse() -> None:
    """Discovery keeps what each top-level statement holds per node: after edits (an import renamed, a
    line break str.splitlines counts but Python does not, above a function) it equals a fresh parse's."""
    source = textwrap.dedent(
        """\
        import numba as nb
        from numba import njit

        # a comment
        @nb.njit(parallel=True)
        def f(a, b=2):
            def inner(x):
                return x
            return inner(a)

        @njit("float64(float64)")
        def g(x):
            return x
        """
    )
    edits = [
        source,
        source.replace("import numba as nb", "import numba as nm"),
        source.replace("# a comment", "# a comment\u2028with a separator"),
        source.replace("return x\n", "return x + 1\n"),
        source.replace("# a comment", "x = 1; y = 2"),
    ]
    parser = IncrementalParser()
    for text in [*edits, *reversed(edits)]:
        tree = parser.parse(text, "d.py")
        assert find_jitted_functions_in_tree(tree, text) == find_jitted_functions_in_tree(
            ast.parse(text), text
        )


def test_an_unchanged_function_keeps_its_nodes() -> None:
    source = textwrap.dedent(
        """
        def f(a):
            return a + 1

        def g(b):
            return b * 2
        """
    )
    parser = IncrementalParser()
    first = parser.parse(source, "m.py")
    second = parser.parse(source.replace("b * 2", "b * 3"), "m.py")
    assert second.body[0] is first.body[0] and second.body[1] is not first.body[1]
    assert parser.reused_statements == 1
    assert _dump(second) == _dump(ast.parse(source.replace("b * 2", "b * 3")))
