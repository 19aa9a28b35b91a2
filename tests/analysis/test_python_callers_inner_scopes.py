"""Calls inside a lambda or a comprehension (`timeit.timeit(lambda: kernel(a))`, `[kernel(n) for _ in
...]`): typed where the call's arguments read only the enclosing scope's variables, and, for a lambda,
where nothing after it changes them; otherwise no signature, with the reason. The truth for each typed
call: numba.typeof of the value the arguments have when the lambda or the comprehension really runs."""

from __future__ import annotations

import numba
import numpy as np
from analysis_helpers import by_code

SOURCE = """
import timeit

import numpy as np
from numba import njit


@njit
def kernel(x):
    return x


@njit
def other(x):
    return x


def benchmark():
    a = np.random.rand(100, 3)
    return timeit.timeit(lambda: kernel(a), number=2)


def repeated():
    n = 1000
    return [kernel(n) for _ in range(3)]


def passes_its_own_variable():
    return [other(v) for v in (1, 2)]


def reassigned_after():
    b = np.ones(3)
    run = lambda: other(b)
    b = 2.5
    return run()


def mutated_after():
    c = [1, 2]
    run = lambda: other(c)
    c.append(2.5)
    return run()


def walrus_inside():
    return [other(y) for x in (1, 2) if (y := x)]
"""


def test_calls_in_lambdas_and_comprehensions(ws) -> None:
    result = ws.analyze("pc_inner.py", SOURCE)
    function = next(f for f in result.functions if f.name == "kernel")
    by_caller = {
        caller.function: tuple(signature.args)
        for signature in function.signatures
        for caller in signature.callers
    }
    assert by_caller == {
        "benchmark": (str(numba.typeof(np.random.rand(100, 3))),),  # array(float64, 2d, C)
        "repeated": (str(numba.typeof(1000)),),  # int64
    }
    assert not next(f for f in result.functions if f.name == "other").signatures
    [note] = by_code(result, "no-signature")
    assert "4 Python calls gave no types" in note.message, note.message
    assert "the call reads 'v', a variable of the comprehension or lambda around it" in note.message
    assert "the call is in a lambda, which may run after 'b' changes (line 35)" in note.message
    assert "the call is in a lambda, which may run after 'c' changes (line 42)" in note.message
    assert "and 1 more" in note.message  # the walrus: `other` has no signature, so it gave none either
