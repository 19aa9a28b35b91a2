"""A jitted function passed to a Python function that calls it (`run(mergesort)` with `def run(sort):
sort(arr)`, Numba's own mergesort example): the call inside is a call of what the function is given, typed
in its scope, never a call of a module function that happens to have the parameter's name. Each
signature is compared with what Numba compiled running the module."""

from __future__ import annotations

import textwrap
from pathlib import Path

from analysis_helpers import check_json, run_probe

SOURCE = textwrap.dedent(
    """\
    import numpy as np
    from numba import njit


    @njit
    def kernel(x):
        return x + 1


    @njit
    def other(x):
        return x * 2


    @njit
    def third(x):
        return x - 1


    @njit
    def unused(x):
        return x


    def run(kernel):
        return kernel(np.ones(3, dtype=np.int32))


    def rebinds(f):
        f = unused
        return f(1.5)


    def nested(f):
        def inner():
            return f(np.zeros(2))

        return inner()


    def imports_it():
        from passed import third

        return third(np.arange(3))


    run(other)
    rebinds(third)
    kernel(2.0)
    imports_it()
    """
)


def test_a_function_passed_on_is_typed_where_it_is_called(tmp_path: Path) -> None:
    (tmp_path / "passed.py").write_text(SOURCE)
    report = check_json(tmp_path, "passed.py")
    shown = {f["name"]: sorted(tuple(s["args"]) for s in f["signatures"]) for f in report["functions"]}
    probe = (
        "import json, passed\n"
        "print(json.dumps({n: sorted([str(a) for a in s.args] for s in getattr(passed, n).nopython_signatures)"
        " for n in ['kernel', 'other', 'third', 'unused']}))"
    )
    numba = {name: [tuple(args) for args in found] for name, found in run_probe(tmp_path, probe).items()}
    assert numba["other"] == [("array(int32, 1d, C)",)] and numba["kernel"] == [("float64",)]
    # run's `kernel(...)` is a call of its parameter (other), not of the module's kernel
    assert shown["kernel"] == numba["kernel"]
    assert shown["other"] == numba["other"]
    # `f = unused` in rebinds: its call is no call of what rebinds is given; a name a function imports is
    # the module's function itself
    assert numba["third"] == [("array(int64, 1d, C)",)]
    assert shown["third"] == numba["third"]
