"""A workspace `@vectorize` kernel's loops, as the analysis loads its module: a loop the module asks for by
its types (`kernel.add(sig)`, or `_compile_for_argtys(types)` in a library's kernel factory, as
datashader's compositing operators do) is a signature recorded for the analysis, not compiled while the
module loads; when a jitted caller is typed, the recorded loops compile first, and Numba picks among them
as it does (a frozen kernel, or one with signatures in its decorator, casts to one of its loops); a jitted
caller the analysis types compiles no loop at all. Every type is compared with what Numba compiled
running the same module."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

from analysis_helpers import analysed_without_lowering, check_json, run_probe

FACTORY = textwrap.dedent(
    """\
    import numba as nb
    import numpy as np

    LOOKUP = {}


    def operator(f):
        kernel = nb.vectorize(f)
        kernel._compile_for_argtys((nb.types.uint32, nb.types.uint32))
        kernel.add("float64(float64, float64)")
        kernel._frozen = True
        LOOKUP[f.__name__] = kernel
        return kernel


    @operator
    def over(src, dst):
        return src if src > dst else dst


    LOOPS_AT_LOAD = over.ufunc.ntypes


    @nb.njit
    def loops_at_load():
        return LOOPS_AT_LOAD


    @nb.njit
    def use_over(a, b):
        return over(a, b)


    use_over(np.ones(3), np.ones(3))


    @nb.njit
    def use_over_ints(a, b):
        return over(a, b)


    use_over_ints(np.ones(3, dtype=np.int64), np.ones(3, dtype=np.int64))
    """
)

DECORATED = textwrap.dedent(
    """\
    import numba as nb
    import numpy as np


    @nb.vectorize(["float64(float64, float64)"])
    def plus(a, b):
        return a + b


    def make(f):
        kernel = nb.vectorize(f)
        kernel.add("float32(float32)")
        return kernel


    @make
    def twice(x):
        return x * 2


    AT_LOAD = twice(np.ones(2, dtype=np.float32)).sum()


    @nb.njit
    def use_plus(a, b):
        return plus(a, b)


    @nb.njit
    def use_twice(a):
        return twice(a) + AT_LOAD


    use_plus(np.ones(3, dtype=np.int64), np.ones(3, dtype=np.int64))
    use_twice(np.ones(3, dtype=np.int16))
    """
)


def _check(root: Path, name: str) -> dict[str, list[tuple[list[str], str]]]:
    report = check_json(root, f"{name}.py")
    assert report["diagnostics"] == [], report["diagnostics"]
    return {f["name"]: [(s["args"], s["return_type"]) for s in f["signatures"]] for f in report["functions"]}


def _numba(root: Path, name: str, callers: list[str]) -> dict[str, str]:
    """The return type Numba compiled for each caller, running the module."""
    probe = (
        f"import json, {name}\n"
        f"print(json.dumps({{c: str(getattr({name}, c).nopython_signatures[0].return_type) for c in {callers!r}}}))"
    )
    found: dict[str, str] = run_probe(root, probe)
    return found


def test_loops_asked_for_in_a_factory_are_recorded_not_compiled(tmp_path: Path) -> None:
    (tmp_path / "ops.py").write_text(FACTORY)
    shown = _check(tmp_path, "ops")
    assert shown["over"] == [(["uint32", "uint32"], "uint32"), (["float64", "float64"], "float64")]
    assert shown["loops_at_load"] == [([], "Literal[int](0)")]  # no loop compiled while loading
    numba = _numba(tmp_path, "ops", ["use_over", "use_over_ints"])
    assert numba == {"use_over": "array(float64, 1d, C)", "use_over_ints": "array(float64, 1d, C)"}
    for caller, return_type in numba.items():
        assert [r for _, r in shown[caller]] == [return_type], caller


def test_a_kernel_with_signatures_casts_to_its_loops(tmp_path: Path) -> None:
    (tmp_path / "ops2.py").write_text(DECORATED)
    shown = _check(tmp_path, "ops2")
    assert shown["plus"] == [(["float64", "float64"], "float64")]
    assert shown["twice"] == [(["float32"], "float32")]  # the loop's return type, not the body's float64
    numba = _numba(tmp_path, "ops2", ["use_plus"])
    assert numba == {"use_plus": "array(float64, 1d, C)"}
    assert [r for _, r in shown["use_plus"]] == [numba["use_plus"]]


CALLERS = textwrap.dedent(
    """\
    import numba as nb
    import numpy as np


    @nb.vectorize(["float64(float64, float64)", "float32(float32, float32)"])
    def bulk(s, t):
        return s * 0.5 + t


    @nb.vectorize
    def lazy(x):
        return x * 2


    def make(f):
        kernel = nb.vectorize(f)
        kernel.add("float32(float32)")
        kernel._compile_for_argtys((nb.types.int64,))
        return kernel


    @make
    def added(x):
        return x + 1


    @nb.vectorize(["float64(float64, float64, float64)"])
    def rho(s, t, p):
        return bulk(s, t) * p


    @nb.njit
    def use_bulk_float32(a):
        return bulk(a, a)


    @nb.njit
    def use_bulk_ints(a):
        return bulk(a, a)


    @nb.njit
    def use_lazy(a, x):
        return lazy(a), lazy(x)


    @nb.njit
    def use_added(a, b, c):
        return added(a), added(b), added(c)


    @nb.njit
    def use_rho(a):
        return rho(a, a, a)


    use_bulk_float32(np.ones(3, dtype=np.float32))
    use_bulk_ints(np.ones((2, 2), dtype=np.int32))
    use_lazy(np.ones(3, dtype=np.int16), 1.5)
    use_added(np.ones(3, dtype=np.float32), np.ones(3, dtype=np.int64), np.ones(3, dtype=np.int8))
    use_rho(np.ones(3))
    """
)


def test_a_jitted_caller_is_typed_without_compiling_a_loop(tmp_path: Path, monkeypatch: Any) -> None:
    """Typing the callers compiles none of the kernels' loops (no lowering at all), and gives each caller
    the return type Numba compiled running the module: casts to a frozen kernel's loops, a loop
    recorded with or without its return type, a loop a lazy kernel would compile, a kernel calling
    another."""
    _analyzer, result, lowered = analysed_without_lowering(tmp_path, monkeypatch, "callers.py", CALLERS)
    assert lowered == [], f"lowered during the analysis: {lowered}"
    module = sys.modules["callers"]
    assert [module.bulk.ufunc.ntypes, module.lazy.ufunc.ntypes, module.added.ufunc.ntypes] == [0, 0, 0]
    shown = {f.name: [s.return_type for s in f.signatures] for f in result.functions}
    callers = ["use_bulk_float32", "use_bulk_ints", "use_lazy", "use_added", "use_rho"]
    numba = _numba(tmp_path, "callers", callers)
    assert numba["use_bulk_ints"] == "array(float64, 2d, C)"  # int32 casts to the float64 loop
    for caller in callers:
        assert shown[caller] == [numba[caller]], caller
