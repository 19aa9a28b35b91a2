"""The light post-processing of the untyped passes (numba_api.inference, light_postprocessing_disabled) leaves out only
what object-mode lowering reads: every inference must be the same without it. Each jitted function of the
bundled examples, the first-sight corpus (30 scripts in the styles users write) and the debugger's
test programs (loops, branches, records, jitclasses, typed containers, parallel=True) is inferred for the
signatures its analysis found, once with it and once with Numba's own post-processing. So is a program of
what the closure-inlining pass inlines (it emits dels only where it may: a closure, `functools.reduce`,
a stencil, a list filled in a loop then made an array), each beside code with nothing to inline."""

from __future__ import annotations

import inspect
import os
import re
import shutil
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


def test_inference_is_the_same_without_the_light_post_processing(tmp_path: Path) -> None:
    assert len(FILES) >= 25
    cwd = os.getcwd()
    analyzer = Analyzer(tmp_path)
    compared = light = 0
    program = tmp_path / "inlining_program.py"
    program.write_text(INLINING_PROGRAM)
    try:
        for source_file in [*FILES, program]:
            path = tmp_path / f"light_{source_file.parent.name}_{source_file.name}"
            shutil.copy(source_file, path)
            text = path.read_text()
            analyzer.memo.clear()
            analyzer.cutoff_memo.clear()
            analyzer.analyze(str(path), text)
            for memo in list(analyzer.memo.values()):
                record = analyzer.loader.recorded.get(memo.function)
                if record is None or memo.function[0] != str(path):
                    continue
                code = record.py_func.__code__
                light += (
                    not code.co_flags & inspect.CO_GENERATOR
                    and not numba_api.has_with_block(code)
                    and not record.dispatcher.targetoptions.get("parallel")
                )
                with numba_api.light_postprocessing_disabled():
                    with numba_api.callee_resolver(analyzer.resolve_callee):
                        numba_own = numba_api.infer(record.dispatcher, memo.inference.args, None)
                assert outcome(memo.inference) == outcome(numba_own), (path.name, memo.function[1])
                compared += 1
    finally:
        os.chdir(cwd)
    print(f"\n{compared} inferences compared ({light} with the light post-processing), {len(FILES)} files")
    assert compared >= 70 and light >= 60
