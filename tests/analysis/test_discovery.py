"""AST-only discovery of jitted functions: every decorator form, options, qualified names, lookup by line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pyserver.analysis.worker.discover.discovery import find_jitted_functions, jitted_function_at


def _find(source: str):
    return {f.name: f for f in find_jitted_functions(textwrap.dedent(source))}


def test_every_decorator_form_and_alias() -> None:
    found = _find(
        """
        import numba
        import numba as nb
        from numba import njit, jit, cfunc, vectorize, guvectorize
        from numba import njit as fast
        from numba import cuda

        @njit
        def a(x): return x

        @njit()
        def b(x): return x

        @jit(nopython=True, cache=True)
        def c(x): return x

        @numba.jit("float64(float64)")
        def d(x): return x

        @nb.njit(["int64(int64)", "float64(float64)"], parallel=True, fastmath={"nnan"})
        def e(x): return x

        @fast(nogil=True, boundscheck=False, debug=True)
        def f(x): return x

        @vectorize(["float64(float64, float64)"], target="cpu")
        def g(x, y): return x + y

        @guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
        def h(x, out): out[:] = x

        @cfunc("float64(float64)")
        def i(x): return x

        @cuda.jit
        def j(x): x[0] = 1

        @numba.njit(forceobj=False, nopython=False, locals={"y": numba.float64})
        def k(x): return x

        def plain(x): return x

        @staticmethod
        def not_jitted(x): return x
        """
    )
    assert set(found) == set("abcdefghijk")
    assert found["a"].kind == "njit" and found["a"].options == {}
    assert found["c"].kind == "jit" and found["c"].options == {"nopython": True, "cache": True}
    assert found["d"].signatures == ["float64(float64)"]
    assert found["e"].signatures == ["int64(int64)", "float64(float64)"]
    assert found["e"].options["parallel"] is True
    assert found["e"].options["fastmath"] == {"nnan"}
    assert found["f"].kind == "njit"
    assert found["f"].options == {"nogil": True, "boundscheck": False, "debug": True}
    assert found["g"].kind == "vectorize" and found["g"].options["target"] == "cpu"
    assert found["h"].kind == "guvectorize" and found["h"].options["layout"] == "(n)->(n)"
    assert found["h"].signatures == ["void(float64[:], float64[:])"]
    assert found["i"].kind == "cfunc" and found["i"].signatures == ["float64(float64)"]
    assert found["j"].kind == "cuda"
    # a non-literal option is kept as source text
    assert found["k"].options["raw"] == {"locals": '{"y": numba.float64}'}
    assert found["k"].options["nopython"] is False
    assert found["b"].params == ["x"] and found["g"].params == ["x", "y"]


def test_lines_and_option_spans() -> None:
    source = textwrap.dedent(
        """\
        from numba import jit

        @jit(
            nopython=False,
        )
        def f(a: "float64[:]", n: int):
            x = 1
            return x
        """
    )
    (function,) = find_jitted_functions(source)
    assert (function.decorator_line, function.def_line, function.end_line) == (3, 6, 8)
    assert function.annotations == {"a": "'float64[:]'", "n": "int"}
    span = function.option_spans["nopython"]
    line = source.splitlines()[span.line - 1]
    assert line[span.col : span.end_col] == "nopython=False"
    assert source.splitlines()[5][function.name_col :].startswith("f(")


def test_jitclass_methods_are_qualified() -> None:
    found = _find(
        """
        from numba.experimental import jitclass
        from numba import float64

        @jitclass([("x", float64)])
        class Point:
            def __init__(self, x):
                self.x = x

            def norm(self):
                return abs(self.x)

        class NotJitted:
            def norm(self):
                return 1
        """
    )
    assert set(found) == {"Point.__init__", "Point.norm"}
    assert found["Point.norm"].kind == "jitclass-method"
    assert found["Point.norm"].options["spec"] == '[("x", float64)]'


def test_nested_functions_and_star_import() -> None:
    found = _find(
        """
        from numba import *

        def outer():
            @njit
            def inner(x):
                return x
            return inner

        @jit
        def top(x):
            return x
        """
    )
    assert set(found) == {"outer.<locals>.inner", "top"}
    assert found["outer.<locals>.inner"].nested and not found["top"].nested


def test_unrelated_decorators_named_like_numba_ones_are_ignored() -> None:
    found = _find(
        """
        from functools import cache as njit
        import mylib

        @njit
        def a(x): return x

        @mylib.jit
        def b(x): return x
        """
    )
    assert found == {}


def test_jitted_function_at_picks_the_innermost_range() -> None:
    source = textwrap.dedent(
        """\
        from numba import njit

        @njit
        def outer(x):
            @njit
            def inner(y):
                return y
            return inner(x)

        y = 1
        """
    )
    functions = find_jitted_functions(source)
    assert jitted_function_at(functions, 3).name == "outer"  # the decorator line
    assert jitted_function_at(functions, 4).name == "outer"
    assert jitted_function_at(functions, 7).name == "outer.<locals>.inner"
    assert jitted_function_at(functions, 8).name == "outer"
    assert jitted_function_at(functions, 10) is None
    assert jitted_function_at(functions, 1) is None


def test_examples_are_found(examples_dir: Path) -> None:
    kernels = find_jitted_functions((examples_dir / "kernels.py").read_text(), "kernels.py")
    assert [f.name for f in kernels] == ["walk", "normalise", "stats"]
    assert all(f.options == {"debug": True} for f in kernels)
    obj = find_jitted_functions((examples_dir / "object_mode.py").read_text())
    assert obj[0].options == {"forceobj": True}


def test_syntax_error_raises() -> None:
    with pytest.raises(SyntaxError):
        find_jitted_functions("def f(:\n", "bad.py")


def _many_functions(count: int) -> str:
    parts = ["import numpy as np", "from numba import njit", ""]
    for i in range(count):
        parts += ["@njit", f"def function_{i}(a, n):", "    total = 0.0", "    for i in range(n):"]
        parts += [
            "        total += a[i] * 2.0",
            "    out = total + 1.0",
            "    out = out * 2.0",
            "    return out",
        ]
        parts += ["", ""]
    return "\n".join(parts) + "\n"


def test_a_large_file_is_discovered_without_a_regex_per_function_and_cached(monkeypatch) -> None:
    import ast
    import re

    from pyserver.analysis.worker.discover import discovery

    source = _many_functions(1000)
    discovery.clear_found_cache()
    assert len(source.splitlines()) >= 10_000
    compiled: list[object] = []
    parsed: list[object] = []
    original_compile, original_parse = re._compile, ast.parse  # type: ignore[attr-defined]

    def counting_compile(*args, **kwargs):  # type: ignore[no-untyped-def]
        compiled.append(args[0])
        return original_compile(*args, **kwargs)

    def counting_parse(*args, **kwargs):  # type: ignore[no-untyped-def]
        parsed.append(1)
        return original_parse(*args, **kwargs)

    monkeypatch.setattr(re, "_compile", counting_compile)  # every re.compile/search/match goes through it
    monkeypatch.setattr(ast, "parse", counting_parse)
    found = find_jitted_functions(source, "big.py")
    assert len(found) == 1000 and len(compiled) < 10, compiled[:20]
    lines = source.splitlines()
    assert all(lines[f.def_line - 1][f.name_col :].startswith(f.name + "(") for f in found)
    again = find_jitted_functions(source, "big.py")  # a hover or a lens after the same text: cached
    assert again == found and len(parsed) == 1
    assert find_jitted_functions(source + "\n", "big.py") != [] and len(parsed) == 2  # a new text: parsed


def test_name_columns_of_unusual_definitions() -> None:
    source = textwrap.dedent(
        """
        from numba import njit

        @njit
        async def coro(x): return x

        @njit
        def   spaced  (x): return x

        @njit
        def deff(x): return x

        @njit
        def café(x): return x
        """
    )
    lines = source.splitlines()
    for function in find_jitted_functions(source):
        assert lines[function.def_line - 1][function.name_col :].startswith(function.name), function.name
