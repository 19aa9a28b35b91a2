"""A Python caller that tests its parameter with isinstance (`if isinstance(first, dict): ... elif
isinstance(first, Dict): _inter_dict(first, second) else: dense(first, second)`, aeon's histogram
intersection): typed from the caller's own callers, a branch the parameter's type rules out gives no call
(else `_inter_dict` would be typed for arrays: a false error), and the others are typed as Numba compiles
them when the program runs. A test the type does not decide (`isinstance(n, int)` for an int64, which may
be a NumPy integer) leaves both branches."""

from __future__ import annotations

import textwrap
from pathlib import Path

from analysis_helpers import check_json, run_probe

SOURCE = textwrap.dedent(
    """\
    import numpy as np
    from numba import njit, types
    from numba.typed import Dict


    @njit
    def inter_dict(first, second):
        sim = 0
        for word, val_a in first.items():
            sim += min(val_a, second.get(word, types.uint32(0)))
        return sim


    @njit
    def dense(first, second):
        return np.minimum(first, second).sum()


    @njit
    def scaled(x):
        return x * 2


    @njit
    def listed(x):
        return len(x)


    @njit
    def counted(n):
        return n + 1


    @njit
    def other(n):
        return n - 1


    def histogram_intersection(first, second):
        if isinstance(first, dict):
            return 0
        elif isinstance(first, Dict):
            return inter_dict(first, second)
        else:
            return dense(first, second)


    def as_array(x):
        if not isinstance(x, (np.ndarray, tuple)):
            return listed(x)
        return scaled(x)


    def step(n):
        if isinstance(n, int):
            return counted(n)
        return other(n)


    if __name__ == "__main__":
        a = np.arange(5)
        histogram_intersection(a, a)
        as_array(np.ones(3))
        step(3)
        step(np.int64(4))
    """
)


def test_branches_an_isinstance_test_rules_out_give_no_call(tmp_path: Path) -> None:
    (tmp_path / "hist.py").write_text(SOURCE)
    report = check_json(tmp_path, "hist.py")
    assert [d["message"] for d in report["diagnostics"] if d["severity"] == "error"] == []
    shown = {f["name"]: sorted(tuple(s["args"]) for s in f["signatures"]) for f in report["functions"]}
    names = ["inter_dict", "dense", "scaled", "listed", "counted", "other"]
    probe = (
        "import json, runpy\n"
        "m = runpy.run_path('hist.py', run_name='__main__')\n"
        f"print(json.dumps({{n: sorted([str(a) for a in s.args] for s in m[n].nopython_signatures) for n in {names!r}}}))"
    )
    numba = {
        name: sorted(tuple(args) for args in found) for name, found in run_probe(tmp_path, probe).items()
    }
    assert numba["inter_dict"] == [] and numba["listed"] == []
    assert shown["inter_dict"] == [] and shown["listed"] == []
    assert shown["dense"] == numba["dense"] == [("array(int64, 1d, C)", "array(int64, 1d, C)")]
    assert shown["scaled"] == numba["scaled"]
    # isinstance(n, int) is not decided for int64 (np.int64(4) is none): both branches' calls count
    assert shown["counted"] == [("int64",)] and shown["other"] == [("int64",)]
    assert numba["counted"] == [("int64",)] and numba["other"] == [("int64",)]
