"""Python callers that make their data with NumPy's Generator (`np.random.default_rng(seed).random(n)`,
NumPy's recommended way): Numba cannot type default_rng inside jitted code, so a slice calls a stand-in
whose one result type is the Generator's, and Numba's own typing does the rest. Ground truth: each
argument type found is the one `numba.typeof` gives the value NumPy computes at run time."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numba
import numpy as np
from analysis_helpers import first_argument_by_caller, function_named, signatures_of

from pyserver.analysis.worker.signatures.caller_slices import substitute_stand_ins
from pyserver.numba_api import NUMPY_STAND_INS

PROFILE_DEMO = Path(__file__).resolve().parents[1] / "e2e" / "programs" / "profile_demo.py"


def test_the_profile_demo_is_typed_at_first_sight(ws) -> None:
    """The bundled profile demo (tests/e2e/programs/profile_demo.py): data from default_rng, then a loop
    that feeds a kernel's result back."""
    result = ws.analyze("gen_demo.py", PROFILE_DEMO.read_text(encoding="utf-8"))
    assert signatures_of(result, "smooth") == [("python-caller", ("array(float64, 1d, C)", "int64"))]
    assert signatures_of(result, "energy") == [("python-caller", ("array(float64, 1d, C)",))]
    assert all(s.ok for s in function_named(result, "smooth").signatures)


# Generator calls as users write them; the truth is numba.typeof of what NumPy returns.
EXPRESSIONS = [
    "rng.random(1000)",
    "rng.random((3, 4))",
    "rng.random()",
    "rng.random(5, dtype=np.float32)",
    "rng.standard_normal(8)",
    "rng.standard_normal((2, 3), dtype=np.float32)",
    "rng.normal(0.0, 1.0, 7)",
    "rng.normal(size=(2, 2))",
    "rng.uniform(-1.0, 1.0, 10)",
    "rng.integers(0, 10, size=5)",
    "rng.integers(0, 10, size=(2, 3), dtype=np.int32)",
    "rng.integers(3, 9)",
    "rng.integers(10)",
    "rng.exponential(2.0, 4)",
    "rng.poisson(3.0, 4)",
    "rng.binomial(10, 0.5, 4)",
    "rng.permutation(10)",
    "rng.choice(10, 3)",
    "rng.gamma(2.0, size=3)",
    "rng.random(6).reshape(2, 3)",
    "rng.random((4, 4)).T",
    "rng.random(9)[::2]",
    "rng.integers(0, 255, 16).astype(np.uint8)",
]


def test_generator_calls_give_numpys_own_types_or_none(ws) -> None:
    found, truth = first_argument_by_caller(
        ws,
        "gen_cases.py",
        EXPRESSIONS,
        ["rng = np.random.default_rng(1)"],
        lambda e: str(numba.typeof(eval(e, {"np": np, "rng": np.random.default_rng(1)}))),
    )
    wrong = {name: (args, truth[name]) for name, args in found.items() if args != truth[name]}
    assert wrong == {}
    # Typed: all but what Numba cannot type (integers(high) alone, choice) or may see as C-contiguous
    # where Numba says F or A (.T, [::2]): those stay unknown.
    assert len(found) >= 19, sorted(set(truth) - set(found))


def test_a_generator_passed_to_a_kernel_as_the_dispatcher_types_it(ws) -> None:
    """`simulate(rng, n)`: the Generator's Numba type, as the dispatcher computes it at run time, and the
    kernel checked with it; `from numpy.random import default_rng` and a module-level generator too."""
    source = """
    import numpy as np
    from numpy.random import default_rng
    from numba import njit

    SHARED = np.random.default_rng(7)


    @njit
    def simulate(rng, n):
        total = 0.0
        for _ in range(n):
            total += rng.normal()
        return total / n


    def main():
        simulate(default_rng(3), 100)
        simulate(SHARED, 5)
    """
    result = ws.analyze("gen_kernel.py", source)
    real = numba.njit(lambda rng, n: rng.normal() * n)
    real(np.random.default_rng(3), 100)
    expected = tuple(str(t) for t in real.signatures[0])
    assert signatures_of(result, "simulate") == [("python-caller", expected)]
    signature = function_named(result, "simulate").signatures[0]
    assert signature.ok and signature.return_type == "float64"
    assert sorted(c.line for c in signature.callers) == [18, 19]


def test_a_function_of_the_users_own_named_default_rng_is_not_replaced(ws) -> None:
    source = """
    import numpy as np
    from numba import njit


    def default_rng(seed):
        return [seed]


    @njit
    def first(values):
        return values[0]


    def main():
        first(default_rng(0))
    """
    result = ws.analyze("gen_own.py", source)
    # typed as the user's own function returns (a list), never as NumPy's Generator
    assert signatures_of(result, "first") == [("python-caller", ("reflected list(int64)<iv=None>",))]


def test_the_parsed_tree_is_never_changed() -> None:
    import ast

    tree = ast.parse(
        textwrap.dedent(
            """
            def __lens_slice__():
                data = np.random.default_rng(0).random(5)
                other = rng_maker(1)
            """
        )
    )
    function = tree.body[0]
    before = ast.dump(function)
    text = ast.unparse(function)
    changed, added = substitute_stand_ins(function, text, {"np": np, "rng_maker": len}, NUMPY_STAND_INS)
    assert ast.dump(function) == before
    assert "__lens_default_rng__(0).random(5)" in ast.unparse(changed)
    assert "rng_maker(1)" in ast.unparse(changed)
    assert list(added) == ["__lens_default_rng__"]
    untouched, none = substitute_stand_ins(function, "no call of it here", {"np": np}, NUMPY_STAND_INS)
    assert untouched is function and none == {}
