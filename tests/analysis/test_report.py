"""Message shortening and AST ranges, on texts shaped like Numba's (pure functions, no worker)."""

from __future__ import annotations

import textwrap

from pyserver.analysis.worker.report.report import (
    SourceIndex,
    is_builtin_call_failure,
    short_message,
    strip_preamble,
)

NUMBA_TEXT = textwrap.dedent(
    """\
    Failed in nopython mode pipeline (step: nopython frontend)
    No implementation of function Function(<built-in function iadd>) found for signature:

     >>> iadd(float64, unicode_type)

    There are 18 candidate implementations:
      - Of which 16 did not match due to:
      Overload of function 'iadd': File: <numerous>: Line N/A.

    During: typing of intrinsic-call at /w/m.py (6)

    File "m.py", line 6:
    def f(x, s):
        x += s
        ^
    """
)

SOURCE = textwrap.dedent(
    """\
    def f(x, s, a):
        y = x.real + a.nosuch
        x += s
        if x < s <= y:
            return x[0] if a else -x
        return len(float(s), 2)
    """
)


def test_short_message_keeps_the_failing_signature_only() -> None:
    message = short_message(NUMBA_TEXT)
    assert (
        message
        == "No implementation of function Function(<built-in function iadd>) found for signature: iadd(float64, unicode_type)"
    )
    full = strip_preamble(NUMBA_TEXT)
    assert not full.startswith("Failed in") and "During: typing" in full


def test_ranges_point_at_the_culprit() -> None:
    index = SourceIndex.parse(SOURCE)
    lines = SOURCE.splitlines()

    def covered(text: str, line: int) -> str:
        r = index.error_range(text, line)
        return lines[r.start.line][r.start.character : r.end.character]

    assert covered(NUMBA_TEXT, 3) == "+="
    assert covered("Unknown attribute 'nosuch' of type array(float64, 1d, C)", 2) == "nosuch"
    assert (
        covered("No implementation of function Function(<built-in function le>) found for signature", 4)
        == "<="
    )
    assert (
        covered("No implementation of function Function(<built-in function lt>) found for signature", 4)
        == "<"
    )
    assert (
        covered("No implementation of function Function(<class 'float'>) found for signature", 6)
        == "float(s)"
    )
    assert (
        covered("No implementation of function Function(<built-in function len>) found for signature", 6)
        == "len(float(s), 2)"
    )
    assert (
        covered("No implementation of function Function(<built-in function neg>) found for signature", 5)
        == "-x"
    )
    assert covered("Untyped global name 'zzz': something", 2) == "y = x.real + a.nosuch"
    assert index.return_ranges(1) == [
        (5, index.node_range(index.tree.body[0].body[2].body[0])),
        (6, index.node_range(index.tree.body[0].body[3])),
    ]  # type: ignore[union-attr]


def test_builtin_call_failures_are_unsupported_operators_are_not() -> None:
    assert is_builtin_call_failure(
        "No implementation of function Function(<class 'float'>) found for signature"
    )
    assert is_builtin_call_failure(
        "No implementation of function Function(<built-in function len>) found for signature"
    )
    assert not is_builtin_call_failure(
        "No implementation of function Function(<built-in function add>) found for signature"
    )
    assert not is_builtin_call_failure(
        "No implementation of function Function(<built-in function iadd>) found for"
    )
    assert not is_builtin_call_failure("Unknown attribute 'x'")
