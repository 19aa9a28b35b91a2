"""Source "python-caller": argument types from the Python code that calls a jitted function, typed by
Numba's inference on a slice of the caller, with nothing executed; and no signature where any argument
is not fully known."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

from analysis_helpers import by_code, function_named, signatures_of

from pyserver.analysis.worker.signatures.call_index import CallIndex
from pyserver.record import store


def test_the_readme_demo_calls_in_a_main_block(ws) -> None:
    source = """
    import numpy as np
    from numba import njit


    @njit
    def row_sums(grid):
        out = np.zeros(grid.shape[0])
        for i in range(grid.shape[0]):
            out[i] = grid[i].sum()
        return out


    @njit
    def fetch(a, index):
        return a[index % a.shape[0]]


    if __name__ == "__main__":
        grid = np.arange(32.0).reshape(8, 4)
        print(row_sums(grid))
        a = np.arange(10, dtype=np.float64)
        fetch(a, 1000000000)
    """
    result = ws.analyze("pc_demo.py", source)
    assert signatures_of(result, "row_sums") == [("python-caller", ("array(float64, 2d, C)",))]
    assert signatures_of(result, "fetch") == [("python-caller", ("array(float64, 1d, C)", "int64"))]
    row_sums = function_named(result, "row_sums").signatures[0]
    assert row_sums.ok and row_sums.return_type == "array(float64, 1d, C)"
    assert [(c.function, c.line) for c in row_sums.callers] == [("<module>", 21)]
    assert os.path.samefile(row_sums.callers[0].path, ws.root / "pc_demo.py")
    assert not by_code(result, "no-signature")


def test_conversions_as_the_dispatcher_makes_them(ws) -> None:
    source = """
    import numpy as np
    from numba import njit


    @njit
    def take(a, b, c, d, e=3):
        return 0


    def main():
        values = [1.0, 2.0]
        values.append(3.5)
        shape = (4, 5)
        flag = True
        take(values, shape, flag, "text")
        take(np.ones((3, 3))[1], (1, 2.5), None, 2.0, e=7)
        # Numba types a.T as F-contiguous and a[::2] as A; at run time either may be C-contiguous
        # (a length-1 axis, a slice of one element), and the dispatcher then compiles for C: no guess.
        take(np.ones((3, 3)).T, 1, 2, 3)
        take(np.ones(3)[::2], 1, 2, 3)


    main()
    """
    result = ws.analyze("pc_conversions.py", source)
    assert signatures_of(result, "take") == [
        (
            "python-caller",
            (
                "reflected list(float64)<iv=None>",
                "UniTuple(int64 x 2)",
                "bool",
                "unicode_type",
                "omitted(default=3)",
            ),
        ),
        ("python-caller", ("array(float64, 1d, C)", "Tuple(int64, float64)", "none", "float64", "int64")),
    ]


def test_no_guess_where_an_argument_is_not_fully_known(ws) -> None:
    source = """
    import sys
    import numpy as np
    from numba import njit


    @njit
    def kernel(x):
        return x


    def from_a_branch(verbose):
        value = 1
        if len(sys.argv) > 1:
            value = 2.5
        kernel(value)


    def from_a_file():
        data = np.loadtxt("data.txt")
        kernel(data)


    def from_a_helper():
        kernel(make())


    def make():
        return np.loadtxt("data.txt")


    def forwarded(*args):
        kernel(*args)


    def narrow():
        kernel(np.float32(1.0) * 2.5)


    x = "a module-level x, not the one the lambda and the nested function pass"
    apply = lambda x: kernel(x)


    def outer():
        x = 1.5

        def inner():
            kernel(x)

        return inner
    """
    result = ws.analyze("pc_no_guess.py", source)
    assert signatures_of(result, "kernel") == []
    [note] = by_code(result, "no-signature")
    assert "7 Python calls gave no types" in note.message, note.message
    assert "'value' gets different types on different paths (float64 or int64)" in note.message


def test_types_from_a_test_through_an_api_function_in_another_module(ws) -> None:
    ws.write(
        "pc_pkg/__init__.py",
        "",
    )
    kernels = ws.write(
        "pc_pkg/kernels.py",
        """
        from numba import njit


        @njit
        def smooth(values, width):
            out = values.copy()
            for i in range(width, values.shape[0] - width):
                out[i] = values[i - width : i + width + 1].mean()
            return out
        """,
    )
    ws.write(
        "pc_pkg/api.py",
        """
        from pc_pkg.kernels import smooth


        def smooth_signal(signal, width=2):
            return smooth(signal, width)
        """,
    )
    ws.write(
        "tests_pc/test_api.py",
        """
        import numpy as np

        from pc_pkg.api import smooth_signal


        def test_smooth():
            signal = np.linspace(0.0, 1.0, 50).astype(np.float32)
            assert smooth_signal(signal).shape == (50,)
        """,
    )
    result = ws.engine.analyze(kernels)
    assert signatures_of(result, "smooth") == [("python-caller", ("array(float32, 1d, C)", "int64"))]
    [caller] = function_named(result, "smooth").signatures[0].callers
    assert (Path(caller.path).name, caller.function, caller.line) == ("api.py", "smooth_signal", 6)


def test_a_recorded_signature_with_the_same_types_is_merged(ws) -> None:
    path = ws.write(
        "pc_merged.py",
        """
        import numpy as np
        from numba import njit


        @njit
        def total(a):
            return a.sum()


        if __name__ == "__main__":
            total(np.ones(5))
        """,
    )
    signatures = ws.root / ".numba-lens" / "signatures.json"
    previous = signatures.read_text() if signatures.exists() else None
    data = store.load(signatures) if signatures.exists() else store.empty()
    key = store.function_key("pc_merged.py", "total")
    data["functions"][key] = [{"args": ["array(float64, 1d, C)"], "types": [], "ok": True}]
    try:
        from numba import types

        from pyserver.record import types_codec

        data["functions"][key][0]["types"] = types_codec.encode_all((types.float64[::1],))
        signatures.parent.mkdir(exist_ok=True)
        signatures.write_text(json.dumps(data))
        result = ws.engine.analyze(path)
    finally:
        if previous is None:
            signatures.unlink()
        else:
            signatures.write_text(previous)
    [signature] = function_named(result, "total").signatures
    assert signature.source == "recorded"
    assert [(c.function, c.line) for c in signature.callers] == [("<module>", 12)]


def test_nothing_runs(ws, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    source = f"""
    import numpy as np
    from numba import njit


    @njit
    def step(a):
        return a * 2


    def main():
        open({str(marker)!r}, "w").write("ran")
        data = np.ones(4)
        data = data + len(open({str(marker)!r}, "w").name)
        step(np.zeros(3))


    if __name__ == "__main__":
        main()
    """
    result = ws.analyze("pc_nothing_runs.py", source)
    assert signatures_of(result, "step") == [("python-caller", ("array(float64, 1d, C)",))]
    assert not marker.exists()


def test_the_call_index_parses_only_what_changed(tmp_path: Path) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("from a import f\nf(1)\n")
    (tmp_path / "a.py").write_text("def f(x):\n    return x\n\nf(2)\n")
    index = CallIndex(str(tmp_path))
    index.refresh()
    assert index.parsed == 0  # read, parsed when asked about
    assert sorted(Path(s.scope.path).name for s in index.calls_to(str(tmp_path / "a.py"), "f")) == [
        "a.py",
        "b.py",
        "c.py",
    ]
    assert index.parsed == 3
    index.refresh()
    assert len(index.calls_to(str(tmp_path / "a.py"), "f")) == 3
    assert index.parsed == 3  # nothing changed: nothing parsed again
    (tmp_path / "b.py").write_text(textwrap.dedent("import a\na.f(3)\na.f(4)\n"))
    index.refresh()
    assert len(index.calls_to(str(tmp_path / "a.py"), "f")) == 4
    assert index.parsed == 4
    index.refresh(str(tmp_path / "c.py"), "x = 1\n")  # the editor's buffer wins over the file
    assert index.parsed == 5
    assert len(index.calls_to(str(tmp_path / "a.py"), "f")) == 3


def test_the_call_index_never_parses_a_file_that_does_not_name_the_function(tmp_path: Path) -> None:
    (tmp_path / "kernels.py").write_text("def kernel(x):\n    return x\n")
    (tmp_path / "caller.py").write_text("from kernels import kernel as k\nk(1.0)\n")
    (tmp_path / "attribute.py").write_text("import kernels\nkernels.kernel(2.0)\n")
    (tmp_path / "unrelated.py").write_text("def other(y):\n    return y\n\nother(3)\n")
    (tmp_path / "broken.py").write_text("def broken(:\n")
    index = CallIndex(str(tmp_path))
    index.refresh()
    sites = index.calls_to(str(tmp_path / "kernels.py"), "kernel")
    assert sorted((Path(s.scope.path).name, s.call.lineno) for s in sites) == [
        ("attribute.py", 2),
        ("caller.py", 2),
    ]
    assert index.parsed == 3  # the callee's file and its two callers; never unrelated.py nor broken.py
    # All files are known (a module name resolves to any of them); the others' calls when asked about.
    assert str((tmp_path / "unrelated.py").resolve()) in index.files
    assert [s.call.lineno for s in index.calls_to(str(tmp_path / "unrelated.py"), "other")] == [4]
    assert index.parsed == 4


def test_a_test_gets_its_argument_from_a_conftest_fixture(ws) -> None:
    kernels = ws.write(
        "pc_fixtures/kernels.py",
        """
        from numba import njit


        @njit
        def peak(values):
            return values.max()
        """,
    )
    ws.write(
        "pc_fixtures/tests/conftest.py",
        """
        import numpy as np
        import pytest


        @pytest.fixture
        def signal():
            t = np.linspace(0.0, 1.0, 100)
            return np.sin(t).astype(np.float32)


        @pytest.fixture
        def table(tmp_path):
            return np.loadtxt(tmp_path / "table.txt")
        """,
    )
    ws.write(
        "pc_fixtures/tests/test_peak.py",
        """
        from pc_fixtures.kernels import peak


        def test_peak(signal):
            assert peak(signal) <= 1.0


        def test_table(table):
            assert peak(table) >= 0
        """,
    )
    result = ws.engine.analyze(kernels)
    [signature] = function_named(result, "peak").signatures
    assert (signature.source, signature.args) == ("python-caller", ["array(float32, 1d, C)"])
    assert [(Path(c.path).name, c.function) for c in signature.callers] == [("test_peak.py", "test_peak")]


EXPRESSIONS = [
    "a.sum()", "a.mean()", "a.std()", "a.var()", "a.max()", "np.median(a)", "a.cumsum()", "a * 2",
    "a + 1.5", "np.sqrt(a)", "a / 2", "a // 2", "abs(a)", "a[0] + 1", "a[0] * 2.5", "a ** 2", "np.exp(a)",
    "a > 0", "a.sum() / 2", "np.clip(a, 0, 3)", "a.reshape(2, 3)", "a.astype(np.float64) * 2",
]  # fmt: skip
DTYPES = ["float32", "int32", "uint8", "bool_", "int64", "float64"]


def test_numpy_and_numba_promotions_never_give_a_wrong_type(ws) -> None:
    """Each expression on each dtype: the type found statically, if any, is the one NumPy's value has at run
    time (computed here by evaluating it), as the dispatcher would see it."""
    import numba
    import numpy as np

    lines = ["import numpy as np", "from numba import njit", "", "@njit", "def k(x):", "    return 0", ""]
    truth: dict[str, str | None] = {}
    for d, dtype in enumerate(DTYPES):
        for e, expression in enumerate(EXPRESSIONS):
            name = f"case_{d}_{e}"
            lines += [
                f"def {name}():",
                f"    a = np.arange(1, 7).astype(np.{dtype})",
                f"    k({expression})",
                "",
            ]
            a = np.arange(1, 7).astype(getattr(np, dtype))
            try:
                truth[name] = str(numba.typeof(eval(expression, {"np": np, "a": a})))
            except Exception:
                truth[name] = None  # the call never happens
    lines += [
        "lists = [1, 2.5]",
        "k(lists)",
        "grow = [1, 2]",
        "grow.append(2.5)",
        "k(grow)",
        "k(max(3, 2.5))",
    ]
    result = ws.analyze("pc_promotions.py", "\n".join(lines) + "\n")
    found = {
        caller.function: signature.args[0]
        for signature in function_named(result, "k").signatures
        for caller in signature.callers
    }
    wrong = {name: (args, truth.get(name)) for name, args in found.items() if args != truth.get(name)}
    assert wrong == {}
    assert len(found) >= 40  # most still typed: reductions, copies, same-dtype arithmetic


def test_hover_and_lens_say_which_call_gave_the_types() -> None:
    from pyserver.analysis.model import CallerSite, FunctionInfo, SignatureResult
    from pyserver.lsp.hover import signature_origin
    from pyserver.lsp.lenses import call_origin

    here = "/w/demo.py"
    signature = SignatureResult(
        args=["array(float64, 2d, C)"],
        source="python-caller",
        callers=[CallerSite(here, "<module>", 42), CallerSite("/w/tests/test_demo.py", "test_rows", 7)],
    )
    text = signature_origin(signature, here)
    assert text.startswith("the calls at [line 42](file:///w/demo.py#L42), ")
    assert "[test_demo.py:7](file:///w/tests/test_demo.py#L7) in `test_rows`" in text
    info = FunctionInfo(path=here, name="row_sums", line=5, signatures=[signature])
    assert call_origin(info) == "types from the call at line 42"
    recorded = SignatureResult(args=["int64"], source="recorded", callers=[CallerSite(here, "main", 9)])
    assert signature_origin(recorded, here) == (
        "signatures recorded from a run; also the call at [line 9](file:///w/demo.py#L9) in `main`"
    )
