"""pysource.source_segment gives the text ast.get_source_segment gives, for every node of sources with
each kind of line break, non-ASCII text, form feeds and a last line without a break."""

from __future__ import annotations

import ast
from pathlib import Path

from pyserver.pysource import source_segment

SOURCES = [
    "a = (1,\r\n     2)\rb = 3\n\x0cc = 'é' + \"ü\" * 2\r\nd = [1,\n     2]",
    "def f(x, *, y='ß'):\n    return {x: [y,\n        y]}\n\n\nclass C:\n    z = f(1,\r\n          y='x')",
    "x = 1",
    "",
]


def _check(source: str) -> int:
    compared = 0
    for node in ast.walk(ast.parse(source)):
        assert source_segment(source, node) == ast.get_source_segment(source, node), ast.dump(node)
        compared += 1
    return compared


def test_segments_equal_the_standard_librarys() -> None:
    assert sum(_check(source) for source in SOURCES) > 40


def test_segments_of_this_repositorys_own_modules_equal_the_standard_librarys() -> None:
    package = Path(__file__).resolve().parents[2] / "pyserver" / "analysis" / "worker" / "discover"
    assert sum(_check(path.read_text(encoding="utf-8")) for path in package.glob("*.py")) > 1000
