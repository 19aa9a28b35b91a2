"""One parse of each text for the whole worker: the analysis of a file, its import by another module (the
definitions-only slice the loader compiles) and the call index share the tree pysource.parse gives, and
an import's slice is reused while the file's text is the same. Shared means read only: the
slices copy what they trim, so the shared tree stays the parse of its text; a changed text is parsed,
sliced and compiled afresh, and the last text's tree is let go."""

from __future__ import annotations

import ast
import gc
import os
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from pyserver import pysource
from pyserver.analysis.worker.infer.analyzer import Analyzer
from pyserver.analysis.worker.load import module_codes, toplevel_slice

# Statements the definitions-only slice trims (an `if` and a `try` keeping part of their blocks) or
# leaves out (a print, a loop), around the constant the jitted function reads.
CONSTANTS = """\
import os

if os.sep:
    SCALE = {scale}
    print("trimmed")
try:
    OFFSET = 1
    print("trimmed too")
except ImportError:
    OFFSET = 0
for _ in range(2):
    print("left out")
"""

KERNELS = """\
from numba import njit

from .constants import OFFSET, SCALE


@njit
def scaled(x):
    return x * SCALE + OFFSET


result = scaled(1.0)
"""


def test_a_tree_held_elsewhere_is_found_again_and_a_changed_text_parsed_afresh() -> None:
    source = "x = 1\n"
    held = pysource.parse(source, "/nowhere/held.py")
    for n in range(3 * pysource.PARSE_CACHE_SIZE):  # the most recent trees cache no longer has it
        pysource.parse(f"y = {n}\n", f"/nowhere/other_{n}.py")
    assert pysource.parse(source, "/nowhere/held.py") is held
    changed = pysource.parse("x = 2\n", "/nowhere/held.py")
    assert changed is not held and ast.unparse(changed) == "x = 2"
    elsewhere = pysource.parse(source, "/nowhere/elsewhere.py")  # a tree belongs to one file
    assert elsewhere is not held and ast.dump(elsewhere) == ast.dump(held)


def test_an_import_is_sliced_once_its_slice_handed_out_afresh_its_tree_kept_shared() -> None:
    text = CONSTANTS.format(scale=2)
    made = module_codes.imported_code(text, "/nowhere/constants.py")
    assert made is not None
    sliced, code = made
    assert sliced.skipped
    sliced.skipped.clear()
    sliced.unavailable["SCALE"] = "changed by a caller"
    made_again = module_codes.imported_code(text, "/nowhere/constants.py")
    assert made_again is not None
    sliced_again, code_again = made_again
    assert sliced_again.tree is sliced.tree and code_again is code  # sliced and compiled once
    fresh = toplevel_slice.slice_module(ast.parse(text), keep_assignments=True, source=text)
    assert sliced_again.skipped == fresh.skipped and sliced_again.unavailable == fresh.unavailable
    # The import's tree is the one a later parse of the text gets (the call index's), however many
    # other files were parsed meanwhile: the statements the slice kept whole are its nodes.
    for n in range(3 * pysource.PARSE_CACHE_SIZE):
        pysource.parse(f"z = {n}\n", f"/nowhere/between_{n}.py")
    later = pysource.parse(text, "/nowhere/constants.py")
    assert any(kept is statement for kept in sliced_again.tree.body for statement in later.body)


@pytest.fixture(autouse=True)
def _forget_the_package() -> Iterator[None]:
    yield
    for name in [n for n in sys.modules if n == "sharedpkg" or n.startswith("sharedpkg.")]:
        del sys.modules[name]


def _types(analyzer: Analyzer, path: Path) -> list[tuple[str, str | None]]:
    result = analyzer.analyze(str(path), path.read_text())
    return [(s.args[0], s.return_type) for f in result.functions for s in f.signatures]


def test_the_analysis_import_and_call_index_share_one_unchanged_tree(tmp_path: Path) -> None:
    package = tmp_path / "sharedpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    constants = package / "constants.py"
    constants.write_text(CONSTANTS.format(scale=2))
    kernels = package / "kernels.py"
    kernels.write_text(KERNELS)
    cwd = os.getcwd()
    try:
        analyzer = Analyzer(tmp_path)
        assert _types(analyzer, kernels) == [("float64", "float64")]
        real = os.path.realpath(constants)
        text = constants.read_text()
        indexed = analyzer.sources.call_index.files[real]
        shared = pysource.parse(text, real)
        assert indexed.tree is shared  # the import and the index parsed it once
        # The import's slice trimmed the `if` and the `try` in copies: the shared tree is still its text's.
        assert ast.dump(shared, include_attributes=True) == ast.dump(ast.parse(text), include_attributes=True)
        # A changed text (its size too: the loader's stamp) is imported anew, never the last compile.
        first = weakref.ref(shared)
        del indexed, shared
        constants.write_text(CONSTANTS.format(scale="2j"))
        assert _types(analyzer, kernels) == [("float64", "complex128")]
        # and nothing keeps the last text's tree (one text per file is kept).
        for n in range(3 * pysource.PARSE_CACHE_SIZE):
            pysource.parse(f"w = {n}\n", f"/nowhere/after_{n}.py")
        gc.collect()
        assert first() is None
    finally:
        os.chdir(cwd)
