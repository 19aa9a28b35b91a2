"""@overload typing functions are typing-time Python: their implementation is what Numba compiles, for
the call's types folded through the implementation's own parameters (a default as Omitted, `*args` as
one tuple). A call that passes fewer arguments than the implementation has, or a `*args` overload, is no
error of the checked code; the typing-time decorators that make nothing jitted are never analysed, and a
@register_jitable function, which is jitted, is typed from the jitted calls that reach it."""

from __future__ import annotations

from analysis_helpers import Workspace, by_code

SOURCE = """
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload, overload_attribute, overload_method, register_jitable


def draw(cdf, size=None):
    pass


@overload(draw)
def ol_draw(cdf, size=None):
    if isinstance(size, types.Integer):
        def draw_impl(cdf, size=None):
            return np.zeros(size)
    else:
        def draw_impl(cdf, size=None):
            return np.searchsorted(cdf, 0.5)
    return draw_impl


def interp(*args):
    pass


@overload(interp)
def ol_interp(*args):
    def impl(*args):
        return args[0][0] + args[1][0] + args[2]
    return impl


@overload_method(types.Array, "total_of")
def ol_total_of(arr):
    def impl(arr):
        return arr.sum()
    return impl


@overload_attribute(types.Array, "first_of")
def ol_first_of(arr):
    def impl(arr):
        return arr[0]
    return impl


@intrinsic
def plus_one(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.add(args[0], context.get_constant(signature.return_type, 1))
    return x(x), codegen


@register_jitable
def twice(x):
    return 2 * x


@njit
def use(cdf: "float64[:]", n: "int64"):
    a = draw(cdf)
    b = draw(cdf, n)
    c = interp(cdf, cdf, 1.0)
    return a, b, c, cdf.total_of(), cdf.first_of, plus_one(n), twice(n)


def main():
    print(twice(2.5))  # Python calling it runs Python: no compile, no signature
"""


def test_overload_implementations_folded_and_typing_time_functions_not_jitted(ws: Workspace) -> None:
    result = ws.analyze("overload_folding.py", SOURCE)
    assert by_code(result, "analysis-failed") == [], [d.message for d in result.diagnostics]
    assert [d.message for d in result.diagnostics if d.severity == "error"] == []
    by_name = {f.name: f for f in result.functions}
    # intrinsic and overload_attribute typing functions are never jitted functions of the file
    assert "plus_one" not in by_name and "ol_first_of" not in by_name
    draw_signatures = sorted(tuple(s.args) for s in by_name["ol_draw"].signatures)
    assert draw_signatures == [
        ("array(float64, 1d, A)", "int64"),
        ("array(float64, 1d, A)", "omitted(default=None)"),
    ]
    assert all(s.ok for s in by_name["ol_draw"].signatures)
    (interp_signature,) = by_name["ol_interp"].signatures
    assert interp_signature.args == ["StarArgTuple(array(float64, 1d, A), array(float64, 1d, A), float64)"]
    assert interp_signature.ok and interp_signature.return_type == "float64"
    # @register_jitable is jitted: typed from the jitted call that reaches it, never from Python's
    assert [(tuple(s.args), s.return_type, s.source) for s in by_name["twice"].signatures] == [
        (("int64",), "int64", "caller")
    ]
    (use_signature,) = by_name["use"].signatures
    assert use_signature.ok, [d.message for d in result.diagnostics]


LITERAL_RETRY = """
from numba import literally, njit
from numba.extending import overload


def demo_iv(x):
    pass


@overload(demo_iv)
def ol_demo_iv(x):
    if x.initial_value is None:
        return lambda x: literally(x)
    return lambda x: len(x)


def broken(x):
    pass


@overload(broken)
def ol_broken(x):
    return lambda x: x.no_such_attribute


@njit
def initial_value_capturing():
    values = [1, 2, 3, 4]
    values.append(5)
    return demo_iv(values)


@njit
def calls_broken(n: int):
    return broken(n)
"""


def test_a_form_numba_passes_over_for_its_literal_retry_is_no_error(ws: Workspace) -> None:
    """Numba types the overload with the list's plain type first (`list(int64)<iv=None>`, whose
    implementation asks for `literally`), then with its initial value: the first failure is Numba's
    resolution at work, not an error of the implementation. An implementation that types with no form of
    its call's types is still an error where it is."""
    result = ws.analyze("ol_literal_retry.py", LITERAL_RETRY)
    overload = next(f for f in result.functions if f.name == "ol_demo_iv")
    assert [s.args for s in overload.signatures] == [["list(int64)<iv=[1, 2, 3, 4]>"]]
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert {d.function for d in errors} == {"ol_broken", "calls_broken"}, [d.message for d in errors]
