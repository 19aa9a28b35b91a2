"""The type data the hover reads: SSA versions with the lines that define and read them."""

from __future__ import annotations

SOURCE = """\
from numba import njit


@njit
def f(n: int):
    x = 1
    y = x * 2
    x = 2.5
    z = x * 2
    for i in range(n):
        z = z + x
        x = x + 1.0
    return z + y
"""


def test_versions_carry_the_lines_that_read_them(ws) -> None:
    result = ws.analyze("versions.py", SOURCE)
    (signature,) = result.functions[0].signatures
    by_ssa = {v.ssa_name: v for v in signature.variables}
    xs = sorted((v for v in signature.variables if v.name == "x"), key=lambda v: (v.line, v.ssa_name))
    # x = 1 (line 6, read on 7), x = 2.5 (line 8, read on 9), the loop's merge (read on 11 and 12),
    # x = x + 1.0 (line 12, read only by the merge). Re-versioned names (x.1.2) keep the source name x.
    assert [(v.line, v.used_lines, v.phi) for v in xs] == [
        (6, [7], False),
        (8, [9], False),
        (10, [11, 12], True),
        (12, [], False),
    ], [(v.ssa_name, v.line, v.used_lines, v.phi) for v in xs]
    assert xs[0].literal == "Literal[int](1)" and {v.type for v in xs[1:]} == {"float64"}
    assert by_ssa["n"].is_arg and by_ssa["n"].used_lines == [10]
    assert by_ssa["y"].used_lines == [13]


def test_used_lines_follow_a_function_that_moved(ws) -> None:
    first = ws.analyze("moved.py", SOURCE)
    moved_source = SOURCE.replace("from numba import njit\n", "from numba import njit\n\n\n\n")
    moved = ws.analyze("moved.py", moved_source)
    assert moved.reused == ["f"]  # answered from the cache, shifted by three lines
    before = {v.ssa_name: v.used_lines for v in first.functions[0].signatures[0].variables}
    after = {v.ssa_name: v.used_lines for v in moved.functions[0].signatures[0].variables}
    assert after == {name: [line + 3 for line in lines] for name, lines in before.items()}
