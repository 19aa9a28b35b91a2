"""Calls inside a lambda or a comprehension (`timeit.timeit(lambda: kernel(a))`, `[kernel(n) for _ in
...]`): typed where the call's arguments read only the enclosing scope's variables, and, for a lambda,
where nothing after it changes them; otherwise no signature, with the reason. The truth for each typed
call: numba.typeof of the value the arguments have when the lambda or the comprehension really runs."""

from __future__ import annotations

import numba
import numpy as np
from analysis_helpers import by_code, function_named

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
    apply = lambda v: other(v)
    return apply(1)


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
    function = function_named(result, "kernel")
    by_caller = {
        caller.function: tuple(signature.args)
        for signature in function.signatures
        for caller in signature.callers
    }
    assert by_caller == {
        "benchmark": (str(numba.typeof(np.random.rand(100, 3))),),  # array(float64, 2d, C)
        "repeated": (str(numba.typeof(1000)),),  # int64
    }
    assert not function_named(result, "other").signatures
    [note] = by_code(result, "no-signature")
    assert "4 Python calls gave no types" in note.message, note.message
    assert "the call reads 'v', a variable of the comprehension or lambda around it" in note.message
    assert "the call is in a lambda, which may run after 'b' changes (line 36)" in note.message
    assert "the call is in a lambda, which may run after 'c' changes (line 43)" in note.message
    assert "and 1 more" in note.message  # the walrus: `other` has no signature, so it gave none either


COMPREHENSIONS = """
import numpy as np
from numba import njit


@njit
def k(x):
    return 0


@njit
def k2(a, b):
    return 0


n = "a module-level n: not the comprehension's"


def sizes():
    return [k(n) for n in [10, 100, 1000]]


def arrays():
    xs = [np.ones(3), np.zeros(4)]
    return [k(x * 2) for x in xs]


def pairs():
    return {i: k2(i, v) for i, v in enumerate([1.5, 2.5])}


def nested():
    return [[k2(a, b) for b in range(3)] for a in np.arange(4.0)]


def generator():
    return sum(k(t) for t in (1, 2, 3))


def mixed():
    return [k(v) for v in [1, 2.5]]


def rows():
    grid = np.ones((3, 4))
    return [k(row) for row in grid]


def in_a_condition():
    return [1 for n in range(3) if k(n) == 0]


def shadowed():
    return [k([n for n in range(3)]) for n in [1.5]]
"""


def test_calls_in_comprehensions_read_the_items_of_their_iterables(ws) -> None:
    """The comprehension's variable types as an item of its iterable; the truth is what each call really
    receives when the functions run in Python (numba.typeof of every argument)."""
    import builtins

    recorded: dict[str, set[tuple[str, ...]]] = {}
    current = [""]

    def recording(function):
        def record(*args):
            recorded.setdefault(current[0], set()).add(tuple(str(numba.typeof(a)) for a in args))
            return 0

        return record

    namespace = {"__builtins__": builtins, "njit": recording}
    exec(COMPREHENSIONS.replace("from numba import njit", ""), namespace)
    callers = [
        "sizes",
        "arrays",
        "pairs",
        "nested",
        "generator",
        "mixed",
        "rows",
        "in_a_condition",
        "shadowed",
    ]
    for name in callers:
        current[0] = name
        namespace[name]()
    result = ws.analyze("pc_comprehensions.py", COMPREHENSIONS)
    found: dict[str, set[tuple[str, ...]]] = {}
    for function in result.functions:
        for signature in function.signatures:
            for caller in signature.callers:
                found.setdefault(caller.function, set()).add(tuple(signature.args))
    wrong = {name: (args, recorded[name]) for name, args in found.items() if not args <= recorded[name]}
    assert wrong == {}
    # typed: every call in a comprehension's element whose items Numba types as Python gives them
    # `shadowed` passes a comprehension of its own, typed where it stands (Python 3.12 inlines it and
    # Numba types it; on 3.11 it stays unknown): never read as the outer comprehension's `n`, which
    # `wrong` above checks
    assert set(found) - {"shadowed"} == {"sizes", "arrays", "pairs", "nested", "generator"}
    # not: a list of an int and a float, the rows of a 2-D array (Numba: 'A' layout, Python: C), and
    # a call in a condition


def test_a_generator_expression_runs_later_like_a_lambda(ws) -> None:
    source = """
    import numpy as np
    from numba import njit


    @njit
    def k(x, y):
        return 0


    def later():
        scale = 2
        results = (k(n, scale) for n in range(3))
        scale = 2.5
        return sum(results)
    """
    result = ws.analyze("pc_generator_later.py", source)
    assert not function_named(result, "k").signatures
    [note] = by_code(result, "no-signature")
    assert "the call is in a generator expression, which may run after 'scale' changes" in note.message
