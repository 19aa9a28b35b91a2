"""A Python caller that tests its parameter (`if resolution is None: raise ... else: steps(resolution)`,
orix's cubochoric sampling; `if x.ndim == 1: return k1(x)` then `return k2(x)`; `len(t) == 2`): where its
callers leave the parameter to its default (None), or pass a 2-D array, the call in the branch the test
rules out never happens, so it gives no signature and no error; the calls the callers do reach are typed
as Numba compiles them."""

from __future__ import annotations

import textwrap
from pathlib import Path

from analysis_helpers import check_json, run_probe

LIBRARY = textwrap.dedent(
    """\
    import numpy as np
    from numba import njit


    @njit
    def to_steps(resolution):
        return int(np.round(131.97 / (resolution - 0.037)))


    @njit
    def fill(out):
        out[:] = 1.0
        return out


    def sample(steps=None, resolution=None):
        if steps is None:
            if resolution is None:
                raise ValueError("give steps or resolution")
            else:
                steps = to_steps(resolution)
        return steps


    def filled(n, out=None):
        if out is not None:
            return fill(out)
        return np.zeros(n)


    @njit
    def first_row(x):
        return x[0] + 1.0


    @njit
    def corner(x):
        return x[0, 0] + 1.0


    @njit
    def pair(t):
        return t[0] + t[1]


    @njit
    def triple(t):
        return t[0] + t[1] + t[2]


    def by_rank(x):
        if x.ndim == 1:
            return first_row(x)
        return corner(x)


    def by_length(t):
        if len(t) == 2:
            return pair(t)
        return triple(t)


    def grid():
        return sample(steps=10)


    def zeros():
        return filled(4)
    """
)

SCRIPT = textwrap.dedent(
    """\
    from library import by_length, by_rank, filled, sample
    import numpy as np

    if __name__ == "__main__":
        sample(resolution=2.5)
        filled(3, np.empty(3))
        by_rank(np.ones((2, 2)))
        by_length((1.0, 2.0))
    """
)


NAMES = ["to_steps", "fill", "first_row", "corner", "pair", "triple"]


def _errors(report: dict) -> list[str]:
    return [d["message"] for d in report["diagnostics"] if d["severity"] == "error"]


def test_a_branch_ruled_out_by_a_none_default_gives_no_call(tmp_path: Path) -> None:
    (tmp_path / "library.py").write_text(LIBRARY)
    report = check_json(tmp_path, "library.py")
    assert _errors(report) == []
    shown = {f["name"]: [s["args"] for s in f["signatures"]] for f in report["functions"]}
    # grid() and zeros() leave resolution and out to their defaults: both calls are in branches that
    # None rules out; by_rank and by_length have no callers here
    assert all(shown[name] == [] for name in NAMES)
    notes = " ".join(d["message"] for d in report["diagnostics"] if d["function"] == "to_steps")
    assert "never reached" in notes


def test_a_branch_the_callers_take_is_typed_as_numba_compiles_it(tmp_path: Path) -> None:
    (tmp_path / "library.py").write_text(LIBRARY)
    (tmp_path / "script.py").write_text(SCRIPT)
    report = check_json(tmp_path, "library.py")
    assert _errors(report) == []
    shown = {f["name"]: sorted(tuple(s["args"]) for s in f["signatures"]) for f in report["functions"]}
    probe = (
        "import json, runpy\n"
        "runpy.run_path('script.py', run_name='__main__')\n"
        "import library\n"
        "print(json.dumps({n: sorted([str(a) for a in s.args] for s in getattr(library, n).nopython_signatures)"
        " for n in ['to_steps', 'fill']}))"
    )
    numba = {
        name: sorted(tuple(args) for args in found) for name, found in run_probe(tmp_path, probe).items()
    }
    assert numba == {"to_steps": [("float64",)], "fill": [("array(float64, 1d, C)",)]}
    assert shown["to_steps"] == numba["to_steps"]
    assert shown["fill"] == numba["fill"]
