"""The analysis types, it never compiles to machine code: analysing a module whose jitted functions
call jitted callees (inlined or not), @overload implementations, NumPy, typed containers, a
`with objmode` block and a parallel=True loop runs none of Numba's lowering passes and leaves no compiled overload behind. And
what makes inlining cheaper while analysing (an inline="always" callee's untyped IR made once; IR blocks
copied by ir_copy) gives the same inferences as Numba's own inlining."""

from __future__ import annotations

import copy
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from analysis_helpers import analysed_without_lowering

from pyserver import numba_api
from pyserver.analysis.worker.infer.analyzer import Analyzer

SOURCE = """
import numpy as np
from numba import njit, objmode, prange, typed
from numba.extending import overload


def clamp(x, low, high):
    return min(max(x, low), high)


@overload(clamp)
def clamp_impl(x, low, high):
    def impl(x, low, high):
        return min(max(x, low), high)
    return impl


@njit(inline="always")
def square(x):
    y = x * x
    return y


@njit(inline="always")
def sum_squares(a, b):
    return square(a) + square(b)


@njit(inline="always")
def clipped_total(v, limit):
    total = 0.0
    for i in range(v.shape[0]):
        if v[i] > limit:
            total += limit
        else:
            total += v[i]
    return total


@njit
def norm(v):
    total = 0.0
    for i in range(v.shape[0]):
        total += square(v[i])
    return np.sqrt(total)


@njit
def caller(v, scale):
    n = norm(v) * scale
    both = sum_squares(n, scale) + sum_squares(scale, n) + clipped_total(v, n) + clipped_total(v, scale)
    items = typed.List()
    items.append(clamp(both, 0.0, 1.0))
    return np.empty_like(v) + items[0]


@njit(parallel=True)
def spread(v):
    out = np.zeros_like(v)
    for i in prange(v.shape[0]):
        out[i] = square(v[i])
    return out


@njit("float64(float64)")
def with_objmode(x):
    with objmode(y="float64"):
        y = float(x) * 2.0
    return y + 1.0


@njit("float32(float32, float32)")
def explicit(a, b):
    return sum_squares(a, b)


v = np.arange(4.0)
caller(v, 2.0)
spread(v)
"""


def test_the_analysis_never_lowers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    analyzer, result, lowered = analysed_without_lowering(tmp_path, monkeypatch, "never_lowers.py", SOURCE)
    typed = {f.name: [s.return_type for s in f.signatures] for f in result.functions}
    assert typed["caller"] == ["array(float64, 1d, C)"] and typed["spread"] == ["array(float64, 1d, C)"], (
        typed
    )
    assert typed["explicit"] == ["float32"] and typed["norm"] == ["float64"], typed
    assert typed["with_objmode"] == ["float64"], typed
    assert lowered == [], f"lowered during the analysis: {lowered}"
    for name, record in analyzer.loader.recorded.items():
        assert not record.dispatcher.overloads, f"{name} has a compiled overload"


def _outcome(inference: Any) -> dict[str, Any]:
    def plain(text: str) -> str:  # an inlined variable's name holds a per-process counter (foo_v12_x)
        return re.sub(r"_v\d+_", "_v_", text)

    return {
        "return": str(inference.return_type),
        "errors": [(e.kind, " ".join(e.text.split()), e.line) for e in inference.errors],
        "variables": sorted(
            (plain(v.name), plain(v.ssa_name), str(v.type), v.line) for v in inference.variables
        ),
        "call_types": sorted((line, name, sig) for line, name, sig in inference.call_types),
    }


def _analysed_functions(folder: Path, name: str) -> Iterator[tuple[Analyzer, Any, Any]]:
    """Analyse SOURCE as `folder/name`, then (analyzer, its record, its memo entry) for each of the file's
    jitted functions the analysis inferred."""
    path = folder / name
    path.write_text(SOURCE)
    cwd = os.getcwd()
    analyzer = Analyzer(folder)
    try:
        analyzer.analyze(str(path), SOURCE)
        for memo in list(analyzer.memo.values()):
            record = analyzer.loader.recorded.get(memo.function)
            if record is not None and memo.function[0] == str(path):
                yield analyzer, record, memo
    finally:
        os.chdir(cwd)


def test_inlining_memo_gives_numbas_inferences(tmp_path: Path) -> None:
    compared = 0
    for analyzer, record, memo in _analysed_functions(tmp_path, "inlining.py"):
        with numba_api.patches.inline_memo_disabled():
            with numba_api.callee_resolver(analyzer.resolve_callee):
                numba_own = numba_api.infer(record.dispatcher, memo.inference.args, None)
        assert _outcome(memo.inference) == _outcome(numba_own), memo.function[1]
        compared += 1
    assert compared >= 5


def _walk_pairs(generic: Any, fast: Any, original: Any, seen: dict[int, int]) -> None:
    """The same structure: same classes, same atoms, an object shared with the original exactly where
    deepcopy shares it, and the same aliasing inside the copy."""
    assert type(generic) is type(fast)
    if id(generic) in seen:
        assert seen[id(generic)] == id(fast)
        return
    seen[id(generic)] = id(fast)
    if generic is original:
        assert fast is original
        return
    assert fast is not original or isinstance(original, (str, int, float, type(None)))
    if isinstance(generic, dict):
        assert list(generic) == list(fast)
        for key in generic:
            _walk_pairs(generic[key], fast[key], original[key], seen)
    elif isinstance(generic, (list, tuple)):
        assert len(generic) == len(fast)
        for a, b, c in zip(generic, fast, original, strict=True):
            _walk_pairs(a, b, c, seen)
    elif hasattr(generic, "__dict__") and not isinstance(generic, type):
        _walk_pairs(vars(generic), vars(fast), vars(original), seen)
    else:
        assert generic == fast


def test_ir_blocks_copy_like_deepcopy() -> None:
    from numba.core import compiler, ir

    def sample(a, b):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i] * b
        pair = (s, a)
        table = {1: 2.0}
        return pair, [x for x in range(3)], table, "text"

    func_ir = compiler.run_frontend(sample)
    fast_copy = ir.Block.__dict__.get("__deepcopy__")
    for block in func_ir.blocks.values():
        with numba_api.patches.inline_memo_disabled():
            generic = copy.deepcopy(block)
        fast = numba_api.deepcopy_block(block, {})
        _walk_pairs(generic, fast, block, {})
        dumped = [io.StringIO(), io.StringIO()]
        generic.dump(dumped[0])
        fast.dump(dumped[1])
        assert dumped[0].getvalue() == dumped[1].getvalue()
    assert ir.Block.__dict__.get("__deepcopy__") is fast_copy


def test_compile_flags_compare_and_hash_by_their_values(tmp_path: Path) -> None:
    """Compile flags compare as their `values()` do and equal ones hash alike: the flags an analysis of
    the sample made (overload templates key their implementations on them) and set by hand."""
    import gc

    from numba.core import targetconfig
    from numba.core.compiler import Flags

    numba_api.install()
    path = tmp_path / "sample.py"
    path.write_text(SOURCE)
    Analyzer(str(tmp_path)).analyze(str(path), path.read_text(), str(tmp_path))

    def is_config(obj: object) -> bool:
        try:
            return isinstance(obj, targetconfig.TargetConfig)
        except ReferenceError:  # a weak proxy an earlier test left, its object gone
            return False

    made = [obj for obj in gc.get_objects() if is_config(obj)]
    nrt_set, nrt_default, nrt_false = Flags(), Flags(), Flags()
    nrt_set.nrt = True
    nrt_false.nrt = False  # set, to the default value: equal to the default flags
    copied = Flags(nrt_set)

    class OtherConfig(targetconfig.TargetConfig):
        extra = targetconfig.Option(type=bool, default=False, doc="an option Flags lacks")

    other = OtherConfig()
    other.extra = True
    foreign = Flags(other)  # holds a value set that is not one of Flags' options
    flags = [*made[:60], nrt_set, nrt_default, nrt_false, copied, foreign, Flags()]
    assert len(made) > 3
    for first in flags:
        for second in flags:
            assert (first == second) == (first.values() == second.values())
            if first == second:
                assert hash(first) == hash(second)
    assert nrt_default == nrt_false and nrt_set == copied and nrt_set != nrt_default


def test_translation_memo_gives_numbas_inferences(tmp_path: Path) -> None:
    """A function typed again starts from a copy of its first translation: the same inferences as
    Numba's own translation, the third time (the first copy) and later."""
    compared = 0
    for analyzer, record, memo in _analysed_functions(tmp_path, "translated.py"):
        with numba_api.callee_resolver(analyzer.resolve_callee):
            again = [numba_api.infer(record.dispatcher, memo.inference.args, None) for _ in range(3)]
            with numba_api.translate_memo_disabled():
                numba_own = numba_api.infer(record.dispatcher, memo.inference.args, None)
        for inference in again:
            assert _outcome(inference) == _outcome(numba_own), memo.function[1]
        compared += 1
    assert compared >= 5
    assert numba_api.translations_reused() >= compared


def test_translation_memo_sees_a_changed_global_or_cell() -> None:
    """The copy is used only while the globals and closure cells the code names hold the same objects."""
    import types as pytypes

    from numba.core import types as nbtypes

    module = pytypes.ModuleType("translated_globals")
    exec(
        "from numba import njit\n"
        "SCALE = 2\n"
        "def make(offset):\n"
        "    @njit\n"
        "    def shifted(x):\n"
        "        return x * SCALE + offset\n"
        "    return shifted\n",
        module.__dict__,
    )
    shifted = module.make(1)
    numba_api.install()
    with numba_api.callee_resolver(lambda *_: None):
        reused = numba_api.translations_reused()
        for _ in range(3):
            assert numba_api.infer(shifted, (nbtypes.int64,), None).return_type == nbtypes.int64
        assert numba_api.translations_reused() == reused + 1
        module.SCALE = 2.5
        assert numba_api.infer(shifted, (nbtypes.int64,), None).return_type == nbtypes.float64
        module.SCALE = 2
        for _ in range(3):
            assert numba_api.infer(shifted, (nbtypes.int64,), None).return_type == nbtypes.int64
        assert shifted.py_func.__closure__ is not None
        shifted.py_func.__closure__[0].cell_contents = 0.5
        assert numba_api.infer(shifted, (nbtypes.int64,), None).return_type == nbtypes.float64


RECURSIVE = """
import numpy as np
from numba import njit


@njit
def outer(a):
    return solve(a, len(a), 1)


@njit
def solve(b, s, w):
    if s == 0:
        return w * b[0]
    h = solve(b, s - 1, -w)
    return h + solve(b, s - 1, w)


if __name__ == "__main__":
    outer(np.ones(3))
"""


def test_a_recursive_call_of_other_argument_types_is_typed_as_numba_types_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`solve` typed for a literal `w` calls itself with `-w` (int64): Numba types that signature too, and
    the analysis types it without compiling it (it used to fail reading the compiled overload)."""
    _analyzer, result, lowered = analysed_without_lowering(tmp_path, monkeypatch, "recursive.py", RECURSIVE)
    assert [d.message for d in result.diagnostics if d.severity == "error"] == []
    assert lowered == [], f"lowered during the analysis: {lowered}"
    (solve,) = [f for f in result.functions if f.name == "solve"]
    (typed,) = solve.signatures
    ours = {v.name: v.type for v in typed.variables}
    truth = tmp_path / "truth.py"  # Numba's own compile, in a process of its own
    truth.write_text(
        RECURSIVE.replace('if __name__ == "__main__":', "if True:")
        + "    import json\n"
        + "    (c,) = [c for sig, c in solve.overloads.items() if 'Literal' in str(sig[2])]\n"
        + "    print(json.dumps([[str(t) for t in c.signature.args], str(c.signature.return_type),"
        + " str(c.type_annotation.typemap['h'])]))\n"
    )
    proc = subprocess.run([sys.executable, str(truth)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    args, returns, h = json.loads(proc.stdout)
    assert (typed.args, typed.return_type, ours["h"]) == (args, returns, h), proc.stdout
