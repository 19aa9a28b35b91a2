"""Source "python-caller": what is reused between slices and between analyses never changes a type.

A probe that passes a local bound once reads that local itself (no copy statement in the slice); the
slice cache is keyed by everything the types depend on, so an edit of the statement that computes an
argument types it again."""

from __future__ import annotations

import textwrap

from analysis_helpers import signatures_of

KERNEL = """
import numpy as np
from numba import njit


@njit
def pair(x, y):
    return 0
"""


def test_callers_with_the_same_statements_pass_their_own_variables(ws) -> None:
    # The two slices are the same statements; only which local each argument reads differs.
    source = (
        KERNEL
        + """

def forward():
    a = np.zeros(3)
    b = 1.5
    pair(a, b)


def backward():
    a = np.zeros(3)
    b = 1.5
    pair(b, a)


forward()
backward()
"""
    )
    result = ws.analyze("pc_reuse_order.py", source)
    assert signatures_of(result, "pair") == [
        ("python-caller", ("array(float64, 1d, C)", "float64")),
        ("python-caller", ("float64", "array(float64, 1d, C)")),
    ]


def test_a_local_bound_twice_is_read_where_the_call_is(ws) -> None:
    # Numba splits a rebound name into versions (`a`, `a.1`); the call reads the second one.
    source = (
        KERNEL
        + """

def rebound(n):
    a = np.zeros(3)
    a = a.astype(np.int32)
    n = n * 2.5
    pair(a, n)


rebound(4)
"""
    )
    result = ws.analyze("pc_reuse_rebound.py", source)
    assert signatures_of(result, "pair") == [("python-caller", ("array(int32, 1d, C)", "float64"))]


def test_an_edit_of_the_statement_that_computes_an_argument_types_it_again(ws) -> None:
    template = (
        KERNEL
        + """

def main():
    data = np.zeros(4{dtype})
    scale = {scale}
    pair(data, scale)


main()
"""
    )
    first = ws.analyze("pc_reuse_edit.py", template.format(dtype="", scale="2"))
    assert signatures_of(first, "pair") == [("python-caller", ("array(float64, 1d, C)", "int64"))]
    again = ws.analyze("pc_reuse_edit.py", template.format(dtype="", scale="2"))
    assert signatures_of(again, "pair") == signatures_of(first, "pair")
    edited = ws.analyze("pc_reuse_edit.py", template.format(dtype=", dtype=np.float32", scale="2.0"))
    assert signatures_of(edited, "pair") == [("python-caller", ("array(float32, 1d, C)", "float64"))]
    back = ws.analyze("pc_reuse_edit.py", textwrap.dedent(template.format(dtype="", scale="2")))
    assert signatures_of(back, "pair") == signatures_of(first, "pair")


def test_a_callee_is_typed_for_the_values_python_passes(ws) -> None:
    # Python passes the dispatcher an int64, never Literal[int](1): Numba cannot compile `first` for it
    # (no index of a heterogeneous tuple by a run-time int), so nothing is known of `x`.
    source = """
    from numba import njit


    @njit
    def first(t, i):
        return t[i]


    @njit
    def show(x):
        return x


    def main():
        t = (1, 2.5)
        x = first(t, 1)
        show(x)


    main()
    """
    result = ws.analyze("pc_reuse_runtime_types.py", textwrap.dedent(source))
    assert signatures_of(result, "first") == [("python-caller", ("Tuple(int64, float64)", "int64"))]
    assert signatures_of(result, "show") == []


def test_constants_passed_directly(ws) -> None:
    source = (
        KERNEL
        + """

def constants():
    pair(1, "text")
    pair(True, None)
    pair(2.5, 9223372036854775808)


def too_large():
    pair(18446744073709551616, 1)


constants()
too_large()
"""
    )
    result = ws.analyze("pc_reuse_constants.py", source)
    assert signatures_of(result, "pair") == [
        ("python-caller", ("int64", "unicode_type")),
        ("python-caller", ("bool", "none")),
        ("python-caller", ("float64", "uint64")),
    ]


def test_a_local_read_before_it_is_bound_stays_numbas_error(ws) -> None:
    # In bytecode order the call reads `x` before the loop binds it: Numba says it is not defined (the
    # probe keeps its copy, and its argument is not read from the later binding).
    source = (
        KERNEL
        + """

def early():
    for i in range(3):
        if i:
            pair(x, i)
        x = 1.5


early()
"""
    )
    result = ws.analyze("pc_reuse_early.py", source)
    assert signatures_of(result, "pair") == []
