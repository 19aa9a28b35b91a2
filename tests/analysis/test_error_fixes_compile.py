"""Common mistakes get a quick fix that really compiles (checked by running the fixed code under Numba),
and Numba's messages that name its own temporaries are told in the user's terms."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from analysis_helpers import Workspace

from pyserver.analysis.worker.report.explain import explain_diagnostic
from pyserver.lsp import actions
from pyserver.lsp.source_edits import Edit

SOURCE = """\
import numpy as np
from numba import njit


@njit
def inverse(m):
    return np.linalg.inv(m)


@njit
def label(n):
    return "%d items" % n


@njit
def pair_label(a, b):
    return "%d of %i (100%%)" % (a, b)


if __name__ == "__main__":
    print(inverse(np.array([[2, 0], [0, 4]])))
    print(label(3))
    print(pair_label(2, 5))
"""


def _apply(text: str, edits: list[Edit]) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    for edit in sorted(edits, key=lambda e: (e.line, e.col), reverse=True):
        start, end = offsets[edit.line] + edit.col, offsets[edit.end_line] + edit.end_col
        text = text[:start] + edit.new_text + text[end:]
        lines = text.splitlines(keepends=True)
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line))
    return text


def test_linalg_of_ints_and_percent_formatting_get_fixes_that_compile(ws: Workspace, tmp_path) -> None:
    result = ws.analyze("fix_compiles.py", SOURCE)
    fixed = SOURCE
    titles = []
    for function in ("inverse", "label", "pair_label"):
        (diagnostic,) = [d for d in result.diagnostics if d.function == function and d.code == "typing-error"]
        explanation = explain_diagnostic(diagnostic)
        data = {**(diagnostic.data or {}), "errorClass": explanation.kind, **explanation.data}
        (fix,) = actions.quick_fixes(fixed, diagnostic.code, diagnostic.range.start.line + 1, data)
        titles.append(fix.title)
        fixed = _apply(fixed, fix.edits)
    assert "str(n) + ' items'" in fixed and "str(a) + ' of ' + str(b) + ' (100%)'" in fixed, titles
    script = tmp_path / "fixed.py"
    script.write_text(fixed)
    ran = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.splitlines()[-2:] == ["3 items", "2 of 5 (100%)"]


def test_numba_temporaries_are_told_in_user_terms(ws: Workspace) -> None:
    source = textwrap.dedent(
        """\
        import numpy as np
        from numba import njit

        @njit
        def grow(a):
            a.append(1.0)
            return a

        @njit("int64(int64)")
        def either(n):
            if n > 0:
                return (n, n)
            return n

        if __name__ == "__main__":
            grow(np.zeros(3))
        """
    )
    result = ws.analyze("user_terms.py", source)
    messages = {(d.function, d.message) for d in result.diagnostics if d.code == "typing-error"}
    assert messages, result.diagnostics
    assert not any("$" in m or "<undecided>" in m or "defined at None" in m for _f, m in messages), messages
    either = [m for f, m in messages if f == "either"]
    assert either == [
        "A return statement gives UniTuple(int64 x 2), but the function's return type is int64 (set by its "
        "other returns or its signature): a compiled function returns one type"
    ]
    kinds = {explain_diagnostic(d).kind for d in result.diagnostics if d.function == "either"}
    assert kinds == {"unify-return"}
