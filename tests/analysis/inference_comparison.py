"""What the tests of the analysis's replacements of Numba's passes compare: each inference the analysis
makes of the jitted functions of the bundled examples, the first-sight corpus (30 scripts in the styles
users write), the debugger's test programs (loops, branches, records, jitclasses, typed containers,
parallel=True) and a program of what Numba's closure-inlining pass inlines, against the same inference
with a replacement turned off."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pyserver import numba_api
from pyserver.analysis.worker.infer.analyzer import Analyzer

ROOT = Path(__file__).resolve().parents[2]
FILES = [
    path
    for folder in (
        "examples",
        "tests/corpus_first_sight/scripts",
        "tests/debug/programs",
        "tests/debug/values_programs",
        "tests/debug/fidelity/programs",
    )
    for path in sorted((ROOT / folder).glob("*.py"))
    if "cuda" not in path.name  # the simulator's kernels are not Numba's CPU target
]


# Each function is called at the bottom, so the analysis finds a signature for it.
INLINING_PROGRAM = """
import functools
import numba
import numpy as np
from numba import njit, stencil


@stencil
def smooth(a):
    return (a[-1] + a[0] + a[1]) / 3


@njit
def plain(a, n):
    total = 0.0
    for i in range(n):
        if a[i] > 0:
            total += a[i]
        else:
            total -= 1.0
    return total


@njit
def with_closure(a):
    scale = 2.0

    def inner(x):
        return x * scale

    total = 0.0
    for v in a:
        total += inner(v)
    return total


@njit
def with_reduce(a):
    return functools.reduce(lambda x, y: x + y, a, 0.0)


@njit
def with_stencil(a):
    return smooth(a)


@njit
def with_numba_stencil(a):
    return numba.stencil(lambda b: b[-1] + b[1])(a)


@njit
def list_made_array(n):
    items = []
    for i in range(n):
        items.append(i * 2.0)
    return np.array(items)


@njit
def list_not_empty(n):
    items = [0.0]
    for i in range(n):
        items.append(float(i))
    return np.array(items)


@njit
def comprehension(n):
    return np.array([i * i for i in range(n)])


a = np.arange(10.0)
plain(a, 10)
with_closure(a)
with_reduce(a)
with_stencil(a)
with_numba_stencil(a)
list_made_array(5)
list_not_empty(5)
comprehension(5)
"""


ADDRESS = r" (object )?at 0x[0-9a-f]+"


def outcome(inference: numba_api.Inference) -> dict[str, Any]:
    return {
        "return": str(inference.return_type),
        # Numba indents a typing error's candidate list by how deep the error contexts were when it
        # formatted it (it differs between two runs of the same inference): compared without spacing.
        "errors": [(e.kind, " ".join(e.text.split()), e.line) for e in inference.errors],
        "warnings": [(w.category, w.text, w.line) for w in inference.warnings],
        "variables": [
            (v.name, v.ssa_name, str(v.type), v.line, v.used_lines, v.phi) for v in inference.variables
        ],
        "calls": [(c.callee, tuple(map(str, c.args)), c.line) for c in inference.calls],
        # a lambda made a dispatcher, or a stencil made in the function, is a new object in each run:
        # compared without its address
        "call_types": [
            (line, re.sub(ADDRESS, "", name), re.sub(ADDRESS, "", text))
            for line, name, text in inference.call_types
        ],
        "returns": [(r.line, str(r.type)) for r in inference.returns],
        "parallel": inference.parallel is not None,
    }


def analysed_inferences(tmp_path: Path, prefix: str) -> Iterator[tuple[Analyzer, Path, Any, Any]]:
    """Each inference the analysis made of each file's own functions (FILES and INLINING_PROGRAM,
    copied under tmp_path): (the analyzer, the copy, its memo entry, its dispatcher record)."""
    cwd = os.getcwd()
    analyzer = Analyzer(tmp_path)
    program = tmp_path / "inlining_program.py"
    program.write_text(INLINING_PROGRAM)
    try:
        for source_file in [*FILES, program]:
            path = tmp_path / f"{prefix}_{source_file.parent.name}_{source_file.name}"
            shutil.copy(source_file, path)
            analyzer.memo.clear()
            analyzer.cutoff_memo.clear()
            analyzer.analyze(str(path), path.read_text())
            for memo in list(analyzer.memo.values()):
                record = analyzer.loader.recorded.get(memo.function)
                if record is not None and memo.function[0] == str(path):
                    yield analyzer, path, memo, record
    finally:
        os.chdir(cwd)
