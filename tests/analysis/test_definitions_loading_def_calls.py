"""A `def` or `class` that is no root of the slice runs with the definitions only when running it costs
nothing: a call in its decorators' arguments (`@pytest.mark.parametrize("a", [expensive(x)])`), its
defaults, its annotations, its bases or its class body (or a read of what such a call computes) makes it
run only when something needs it. Such a call may compile a package's jitted functions for real, or act
on the world. Every shape below writes a `<shape>.ran` file if it runs (through a workspace module whose
body the calling module cannot see into); none may exist after `check`, the jitted functions are still
typed, and each left-out definition is listed with its reason. Roots (`@njit`, `@overload`,
`@register_jitable`, `@jitclass`) run as before, and a needed definition runs whatever it calls."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from analysis_helpers import check_json

from pyserver.analysis.worker.load.toplevel_slice import slice_module

HELPERS = textwrap.dedent(
    """\
    def expensive(shape):
        with open(shape + ".ran", "a") as handle:
            handle.write("ran")
        return 1.0


    def make_base(shape):
        expensive(shape)
        return object
    """
)

CASES = textwrap.dedent(
    """\
    import numpy as np
    from numba import float64, njit
    from numba.experimental import jitclass
    from numba.extending import overload, register_jitable

    from helpers import expensive, make_base


    def parametrize(names, cases):
        # a stand-in for pytest.mark.parametrize (the last part of the name is what counts)
        def mark(function):
            function.cases = cases
            return function

        return mark


    def clip_py(x):
        return min(x, 1.0)


    @overload(clip_py)
    def _clip_impl(x):
        def impl(x):
            return min(x, 1.0)

        return impl


    @register_jitable
    def twice(x):
        return 2.0 * x


    @jitclass([("n", float64)])
    class Bag:
        def __init__(self, n):
            self.n = n


    @njit
    def kern(x: float):
        return twice(clip_py(x)) + Bag(x).n


    @parametrize("x", [1.0, 2.0])
    def test_constant_cases(x):
        assert kern(x) > 0


    @parametrize("x", [expensive("decorator"), kern(1.0)])
    def test_called_cases(x):
        assert kern(x) > 0


    @parametrize("x", [open("inline.ran", "a").write("ran")])
    def test_inline(x):
        pass


    COMPUTED = [expensive("computed")]


    @parametrize("x", COMPUTED)
    def test_computed_cases(x):
        assert kern(x) > 0


    def run(x=expensive("default")):
        return kern(x)


    class Suite:
        data = expensive("class_body")

        def test(self):
            return kern(self.data)


    class Derived(make_base("base")):
        pass


    class Settings:
        size = 3
    """
)

LEFT_OUT = {  # first line (a decorated definition's is its first decorator's) -> what its reason names
    51: "call functions",
    56: "call functions",
    61: "an assignment",
    64: "read `COMPUTED`, which line 61 computes",
    69: "call functions",
    73: "calls functions",
    80: "calls functions",
}


def test_the_slice_leaves_out_definitions_that_call() -> None:
    sliced = slice_module(ast.parse(CASES), source=CASES)
    reasons = {s.line: s.reason for s in sliced.skipped}
    assert reasons.keys() == LEFT_OUT.keys(), reasons
    for line, named in LEFT_OUT.items():
        assert named in reasons[line], (line, reasons[line])
    assert "no jitted function needs" in reasons[51]
    kept = {getattr(node, "name", None) for node in sliced.tree.body}
    assert {"parametrize", "clip_py", "_clip_impl", "twice", "Bag", "kern", "test_constant_cases"} <= kept
    assert "Settings" in kept


def test_common_plain_decorators_still_run() -> None:
    source = textwrap.dedent(
        """\
        import dataclasses
        import functools

        import numpy as np
        import pytest
        from numba import njit

        N = 3


        @functools.lru_cache(maxsize=None)
        def table(n):
            return n


        @pytest.fixture(scope="module")
        def data():
            return np.ones(N)


        @pytest.mark.parametrize("n", [1, 2, N])
        def test_sizes(n):
            pass


        @pytest.mark.parametrize("a", [np.asarray([1.0])])
        def test_arrays(a):
            pass


        @pytest.mark.filterwarnings("ignore:Maximum number of iterations")
        @pytest.mark.skipif(np.ones(2).sum() > 3, reason="never")
        def test_marked():
            pass


        @dataclasses.dataclass
        class Options:
            size: int = N


        @dataclasses.dataclass
        class Loaded:
            table: object = np.ones(N)


        @njit
        def f(x):
            return x
        """
    )
    sliced = slice_module(ast.parse(source), source=source)
    kept = {getattr(node, "name", None) for node in sliced.tree.body}
    assert {"table", "data", "test_sizes", "Options", "f"} <= kept
    assert "test_arrays" not in kept and "Loaded" not in kept and "test_marked" not in kept
    decorator_line = next(i for i, line in enumerate(source.splitlines(), 1) if "np.asarray" in line)
    (skipped,) = [s for s in sliced.skipped if s.line == decorator_line]
    assert "decorators, defaults or annotations call functions" in skipped.reason


def test_a_fallback_definition_in_a_try_still_runs_and_one_under_a_call_does_not() -> None:
    source = textwrap.dedent(
        """\
        import os

        from numba import njit

        try:
            from functools import cache
        except ImportError:
            def cache(function):
                return function

        if os.environ.get("FAST"):
            def tuned(n=4):
                return n


        @cache
        def helper():
            return 1


        @njit
        def f(x):
            return x
        """
    )
    sliced = slice_module(ast.parse(source), source=source)
    kept = ast.unparse(sliced.tree)
    assert "def cache(function)" in kept and "def helper()" in kept
    assert "def tuned" not in kept
    (skipped,) = [s for s in sliced.skipped if s.line == 11]  # the `if`, with what it holds
    assert skipped.reason.startswith("a `def` inside the block of line 11, which calls when it runs")


def test_check_runs_no_definition_that_calls(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "cases.py").write_text(CASES)
    report = check_json(tmp_path, "cases.py")
    ran = sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".ran"))
    assert ran == [], f"ran during the analysis: {ran}"
    assert [d for d in report["diagnostics"] if d["severity"] == "error"] == []
    kern = next(f for f in report["functions"] if f["name"] == "kern")
    assert [s["args"] for s in kern["signatures"]] == [["float64"]]
    (file_report,) = report["files"]
    reasons = {s["line"]: s["reason"] for s in file_report["skipped"]}
    assert reasons.keys() == LEFT_OUT.keys(), reasons


NEEDED = textwrap.dedent(
    """\
    from numba import njit

    from helpers import expensive


    def parametrize(names, cases):
        def mark(function):
            return function

        return mark


    def step_py(x, scale=expensive("jit_builder_default")):
        return x * scale


    step = njit(step_py)


    class Config:
        factor = expensive("needed_class")


    FACTOR = Config.factor


    @parametrize("x", [expensive("needed_decorator")])
    def limit():
        return 4.0


    LIMIT = limit()


    @njit
    def uses(x: float):
        return step(x, 2.0) * FACTOR + LIMIT
    """
)

LIBRARY = textwrap.dedent(
    """\
    from numba import njit

    from helpers import expensive


    def scale_py(x, k=expensive("imported_default")):
        return x * k


    @njit
    def own(x: float):
        return x + 1.0
    """
)

IMPORTER = textwrap.dedent(
    """\
    from numba import njit

    from library import scale_py

    scaled = njit(scale_py)


    @njit
    def uses_imported(x: float):
        return scaled(x, 3.0)
    """
)


def test_a_needed_definition_that_calls_still_runs(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "needed.py").write_text(NEEDED)
    (tmp_path / "library.py").write_text(LIBRARY)
    (tmp_path / "importer.py").write_text(IMPORTER)
    sliced = slice_module(ast.parse(NEEDED), source=NEEDED)
    assert sliced.skipped == []
    assert "scale_py" not in {getattr(n, "name", None) for n in slice_module(ast.parse(LIBRARY)).tree.body}
    report = check_json(tmp_path, "needed.py", "library.py", "importer.py")
    assert [d for d in report["diagnostics"] if d["severity"] == "error"] == []
    typed = {f["name"]: [s["args"] for s in f["signatures"]] for f in report["functions"]}
    assert typed["uses"] == [["float64"]]
    assert typed["own"] == [["float64"]]
    assert typed["uses_imported"] == [["float64"]]  # the importer got the `def` its library left out
    ran = {p.name for p in tmp_path.iterdir() if p.name.endswith(".ran")}
    assert {
        "jit_builder_default.ran",
        "needed_class.ran",
        "needed_decorator.ran",
        "imported_default.ran",
    } <= ran


def test_a_needed_definition_that_acts_on_the_world_never_runs() -> None:
    source = textwrap.dedent(
        """\
        from numba import njit


        def parametrize(names, cases):
            def mark(function):
                return function

            return mark


        @parametrize("x", [open("written.ran", "a").write("ran")])
        def limit():
            return 4.0


        LIMIT = limit()


        @njit
        def uses(x):
            return x + LIMIT
        """
    )
    sliced = slice_module(ast.parse(source), source=source)
    kept = ast.unparse(sliced.tree)
    assert "def limit" not in kept and "LIMIT = limit()" not in kept
    assert set(sliced.unavailable) >= {"limit", "LIMIT"}
    (refused,) = [s for s in sliced.skipped if s.line == 11]
    assert "`.write()`" in refused.reason and "`limit`" in refused.reason


MARK_ALIASES = textwrap.dedent(
    """\
    import pytest
    from numba import njit

    from helpers import expensive

    DISABLE_JIT = False
    too_slow_without_jit = pytest.mark.skipif(DISABLE_JIT, reason="too slow without the JIT")
    veryslow = pytest.mark.veryslow


    @njit
    def kern(x: float):
        return x + 1.0


    class TestAlgebra:
        @too_slow_without_jit
        @veryslow
        @pytest.mark.parametrize("algebra", [expensive("alias_marked")])
        def test_multiply(self, algebra):
            assert kern(algebra) > 0

        @pytest.mark.slow
        @pytest.mark.parametrize("algebra", [expensive("custom_marked")])
        def test_add(self, algebra):
            assert kern(algebra) > 0
    """
)


def test_a_module_name_for_a_pytest_mark_is_a_plain_decorator(tmp_path: Path) -> None:
    """`too_slow = pytest.mark.skipif(...)` then `@too_slow` on a test method, and a custom mark
    (`@pytest.mark.slow`): the class is a plain definition whose decorators call functions (not a root
    that always runs), as with `@pytest.mark.skipif` written out."""
    sliced = slice_module(ast.parse(MARK_ALIASES), source=MARK_ALIASES)
    reasons = {s.line: s.reason for s in sliced.skipped}
    assert "call" in reasons[16], reasons
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "test_algebra.py").write_text(MARK_ALIASES)
    report = check_json(tmp_path, "test_algebra.py")
    assert not list(tmp_path.glob("*.ran"))
    assert report["diagnostics"] == [], report["diagnostics"]
    assert [s["return_type"] for f in report["functions"] for s in f["signatures"]] == ["float64"]
