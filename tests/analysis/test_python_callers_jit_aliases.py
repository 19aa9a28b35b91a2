"""A dispatcher made by calling Numba's jit on a function (`fast = jit(nopython=True)(slow)`): the
calls of `fast` compile `slow` for the types of their arguments (numba.typeof of the values), a call of
`slow` itself runs Python and compiles nothing, and a parallel and a serial dispatcher over one
function give neither of them the other's calls."""

from __future__ import annotations

import numba
import numpy as np
from analysis_helpers import signatures_of

SOURCE = """\
import numpy as np
import numba
from numba import jit, njit


def slow(x):
    total = 0.0
    for v in x:
        total += v
    return total


fast = jit(nopython=True)(slow)


def scale(a, k):
    return a * k


scaled = numba.njit(scale)


def twin(a):
    return a * 2


twin_parallel = njit(parallel=True)(twin)
twin_serial = njit(twin)

if __name__ == "__main__":
    x = np.arange(10.0)
    print(fast(x), slow([1.0, 2.0]))
    print(scaled(np.ones((2, 2), dtype=np.float32), 3))
    print(twin_parallel(x), twin_serial(np.arange(3)))
"""


def test_calls_of_a_jit_made_dispatcher_type_its_function(ws) -> None:
    result = ws.analyze("pc_jit_aliases.py", SOURCE)
    assert signatures_of(result, "slow") == [("python-caller", (str(numba.typeof(np.arange(10.0))),))]
    ones = np.ones((2, 2), dtype=np.float32)
    assert signatures_of(result, "scale") == [
        ("python-caller", (str(numba.typeof(ones)), str(numba.typeof(3))))
    ]
    assert signatures_of(result, "twin") == []


def test_the_note_of_a_jit_made_dispatcher_names_the_call_that_jits_it(ws) -> None:
    """vectorbt's `renormalize_nb = njit(cache=True)(renormalize)`: the plain function is called from
    Python and stays Python; the note says which call jits it and asks for a signature there, not for a
    decorator on the plain function."""
    result = ws.analyze(
        "pc_jit_alias_note.py",
        """\
import numpy as np
from numba import njit


def renormalize(a, lo, hi):
    return (a - lo) / (hi - lo)


renormalize_nb = njit(cache=True)(renormalize)


def plot(values):
    return renormalize(np.asarray(values), 0.0, 1.0)
""",
    )
    assert signatures_of(result, "renormalize") == []
    (note,) = [d for d in result.diagnostics if d.code == "no-signature"]
    assert "A call at line 9 jits it, not a decorator" in note.message
    assert "(a call of 'renormalize' itself runs Python and compiles nothing)" in note.message
    assert "No Python code in the workspace calls that dispatcher" in note.message
    assert (
        'Give the call at line 9 a signature of its argument types (njit("(<type of a>, <type of lo>, <type'
        in (note.message)
    )
    assert "@njit" not in note.message


REBOUND = """\
import numpy as np
from numba import jit, njit


def first(x):
    return x + 1.0


def second(x):
    return x * 2


def later():
    return fast(np.arange(3))  # runs whenever it is called: which dispatcher `fast` holds is unknown


fast = jit(nopython=True)(first)
print(fast(1.5))

fast = njit(second)
print(fast(np.ones((2, 2))))
if __name__ == "__main__":
    print(fast(3))
"""


def test_a_name_rebound_to_another_dispatcher_calls_each_in_turn(ws) -> None:
    """Numba's ctypes example: `cfunc = jit(nopython=True)(use_c_sin)`, a call, then `cfunc` made of
    another function and called again. The module's own code runs in order: each call compiles the
    function the name holds there; a function body's call could run at any time and gives nothing."""
    result = ws.analyze("pc_jit_rebound.py", REBOUND)
    assert signatures_of(result, "first") == [("python-caller", (str(numba.typeof(1.5)),))]
    assert sorted(signatures_of(result, "second")) == sorted(
        [
            ("python-caller", (str(numba.typeof(np.ones((2, 2)))),)),
            ("python-caller", (str(numba.typeof(3)),)),
        ]
    )
