"""Arguments made by a plain Python function of the workspace (`OPT = randfloat(np.random.random(N), 1.0,
2.0)`, Numba's Black-Scholes example; `data = make_data(1000)`): the function's body is typed by Numba for
the call's argument types, as a slice's own statements are, without running it. Each type found must be
numba.typeof of the value the function really returns (the module's constants it reads, `N = 1000`, as literals, although the
definitions-only load does not define them); a function whose result Python and Numba could type
differently (returns of several types, float32 arithmetic, what Numba cannot type) gives no type, and no
function runs (one writes a file if it does)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from analysis_helpers import Workspace, check_json, function_named, run_probe

HELPERS = textwrap.dedent(
    """\
    import numpy as np
    from numba import njit
    from lens_helper_grids import make_grid

    MARK = "helper_ran.txt"
    SIZE = 6
    SCALE = 0.5
    TWICE = 1
    TWICE = 2.5
    TABLE = np.arange(5.0)


    @njit
    def k(x):
        return 0


    @njit
    def doubled(a):
        return a * 2


    @njit
    def from_table(i):
        return TABLE[i]


    def randfloat(rand_var, low, high):
        return (1.0 - rand_var) * low + rand_var * high


    def make_data(n, scale=2.0):
        a = np.arange(n) * scale
        return a


    def pair(n):
        return np.zeros(n), np.ones((n, 2), dtype=np.int32)


    def filled(n):
        out = np.empty(n)
        for i in range(n):
            out[i] = i * 0.5
        return out


    def through_jit(n):
        return doubled(np.arange(n))


    def zeros_of(n, like=None):
        if like is None:
            return np.zeros(n)
        return np.zeros_like(like)


    def zeros_or(x=None):
        if x is None:
            return np.zeros(4)
        return x


    def several(n):
        if n > 3:
            return 1
        return 2.5


    def narrow(n):
        return np.ones(n, dtype=np.float32) * 1.5


    def reads_file(n):
        return np.loadtxt("data.txt")[:n]


    def writes(n):
        open(MARK, "a").write("ran")
        return np.zeros(n)


    def star(*shape):
        return np.zeros(shape)


    def sized():
        return np.arange(SIZE) * SCALE


    def twice_bound():
        return np.zeros(3) + TWICE


    def global_table():
        return TABLE


    def table_copy():
        return TABLE.copy()
    """
)

GRIDS = textwrap.dedent(
    """\
    import numpy as np


    def make_grid(n, m):
        return np.linspace(0.0, 1.0, n * m).reshape(n, m)
    """
)

TYPED = [
    "randfloat(np.random.random(5), 1.0, 2.0)",
    "randfloat(np.random.random((5, 2)), 40, 50)",
    "make_data(10)",
    "make_data(10, scale=3)",
    "pair(4)[0]",
    "pair(4)[1]",
    "filled(6)",
    "through_jit(3)",
    "zeros_of(3)",
    "make_grid(3, 4)",
    "sized()",
    "table_copy()",
    "zeros_or()",
]
# Numba types a global array read-only; Python's function returns the (writable) array itself
UNTYPED = [
    "several(4)",
    "narrow(4)",
    "reads_file(2)",
    "writes(3)",
    "star(2, 3)",
    "twice_bound()",
    "global_table()",
]


def _module(cases: list[str]) -> str:
    lines = [HELPERS]
    for number, expression in enumerate(cases):
        lines += [f"def case_{number}():", f"    k({expression})", ""]
    return "\n".join(lines) + "\n"


def test_python_helpers_give_numpys_own_types(ws: Workspace) -> None:
    ws.write("lens_helper_grids.py", GRIDS)
    source = _module(TYPED + UNTYPED)
    result = ws.analyze("lens_helper_calls.py", source)
    found = {c.function: s.args[0] for s in function_named(result, "k").signatures for c in s.callers}
    probe = (
        "import json, sys, numba\n"
        f"sys.path.insert(0, {str(ws.root)!r})\n"
        "import numpy as np, lens_helper_calls as m\n"
        f"print(json.dumps([str(numba.typeof(eval(e, vars(m)))) for e in {TYPED!r}]))"
    )
    truth = {f"case_{i}": t for i, t in enumerate(run_probe(ws.root, probe))}
    typed = {name: found.get(name) for name in truth}
    assert typed == truth
    untyped = {f"case_{len(TYPED) + i}" for i in range(len(UNTYPED))}
    assert untyped.isdisjoint(found), {n: found[n] for n in untyped & set(found)}
    assert not (ws.root / "helper_ran.txt").exists()
    # where no call gives types, the note says why, function by function
    alone = ws.analyze("lens_helper_calls_untyped.py", _module(UNTYPED))
    assert function_named(alone, "k").signatures == []
    notes = " ".join(d.message for d in alone.diagnostics)
    assert "the Python function 'several' returns values of several types" in notes
    assert "the Python function 'narrow' computes values that may have other types" in notes


def test_the_hover_types_of_a_kernel_called_with_helper_values_are_numbas(tmp_path: Path) -> None:
    """The whole chain in a user's script: `check` types the kernel at first sight, and its variables'
    types are those Numba compiles when the script runs."""
    (tmp_path / "bs.py").write_text(
        textwrap.dedent(
            """\
            import numpy as np
            from numba import njit


            def randfloat(rand_var, low, high):
                return (1.0 - rand_var) * low + rand_var * high


            @njit
            def black_scholes(price, strike, years):
                out = np.empty_like(price)
                for i in range(price.shape[0]):
                    out[i] = max(price[i] - strike[i], 0.0) * np.exp(-0.02 * years[i])
                return out


            def main():
                n = 100
                price = randfloat(np.random.random(n), 5.0, 30.0)
                strike = randfloat(np.random.random(n), 1.0, 100.0)
                years = randfloat(np.random.random(n), 0.25, 10.0)
                black_scholes(price, strike, years)


            if __name__ == "__main__":
                main()
            """
        )
    )
    import subprocess
    import sys

    from analysis_helpers import ROOT

    done = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", "--variables", "bs.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    report = json.loads(done.stdout)
    (function,) = [f for f in report["functions"] if f["name"] == "black_scholes"]
    (signature,) = function["signatures"]
    shown = {v["ssa_name"]: v["type"] for v in signature["variables"]}
    probe = (
        "import json, runpy\n"
        "m = runpy.run_path('bs.py', run_name='__main__')\n"
        "(s,) = m['black_scholes'].signatures\n"
        "t = m['black_scholes'].overloads[s].type_annotation.typemap\n"
        "print(json.dumps({k: str(v) for k, v in t.items() if not k.startswith('$')}))"
    )
    numba = run_probe(tmp_path, probe)
    assert signature["source"] == "python-caller"
    assert {k: shown[k] for k in numba if k in shown} == {k: numba[k] for k in numba if k in shown}
    assert {"price", "strike", "years", "out"} <= set(shown)


def test_a_helper_called_through_its_module_is_typed_as_a_direct_call(tmp_path: Path) -> None:
    """porespy's demos: `import porespy as ps` inside the `__main__` block, then `im = ps.make(6)` passed on
    to a function that calls the kernel. The module's own plain functions are typed as `make(6)` is."""
    (tmp_path / "blobs.py").write_text(
        textwrap.dedent(
            """\
            import numpy as np
            from numba import njit


            @njit
            def first_set(im, order):
                n = 0
                for i in range(im.size):
                    if im.flat[i]:
                        order[n] = i
                        n += 1
                return n


            def make(n):
                return np.ones((n, n), dtype=np.bool_)


            def simulate(im):
                order = np.empty(im.size, dtype=np.int32)
                return first_set(im, order)


            if __name__ == "__main__":
                import blobs as ps

                im = ps.make(6)
                simulate(im)
            """
        )
    )
    report = check_json(tmp_path, "blobs.py")
    (function,) = report["functions"]
    truth = run_probe(
        tmp_path,
        "import json, runpy\nimport blobs\nns = runpy.run_path('blobs.py', run_name='__main__')\n"
        "print(json.dumps([[str(a) for a in s] for s in ns['first_set'].signatures]))",
    )
    assert (
        [s["args"] for s in function["signatures"]]
        == truth
        == [["array(bool, 2d, C)", "array(int32, 1d, C)"]]
    )
