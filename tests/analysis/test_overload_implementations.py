"""An @overload / @overload_method typing function returns the implementation Numba compiles
(`ol_f.<locals>.impl`): at first sight (nothing recorded), `check` lists each implementation a typed jitted
caller reaches with exactly the signatures Numba compiles it for, compared here with the dispatchers a
real run of the program compiled."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from analysis_helpers import check_json, run_probe

SOURCE = textwrap.dedent(
    """
    import numpy as np
    from numba import njit, types
    from numba.experimental import structref
    from numba.extending import overload, overload_method


    def norm2(a):
        pass


    @overload(norm2)
    def ol_norm2(a):
        def impl(a):
            return np.sqrt((a * a).sum())
        return impl


    def draw(cdf, size=None):
        pass


    @overload(draw)
    def ol_draw(cdf, size=None):
        if isinstance(size, types.Integer):
            def draw_impl(cdf, size=None):
                return np.zeros(size)
        else:
            def draw_impl(cdf, size=None):
                return np.searchsorted(cdf, 0.5)
        return draw_impl


    def specialize(x):
        pass


    @overload(specialize)
    def ol_specialize(x):
        if not isinstance(x, types.IntegerLiteral):
            return lambda x: literally(x)
        n = x.literal_value
        return lambda x: n + 1


    @structref.register
    class PointType(types.StructRef):
        def preprocess_fields(self, fields):
            return tuple((name, types.unliteral(typ)) for name, typ in fields)


    class Point(structref.StructRefProxy):
        def __new__(cls, x, y):
            return structref.StructRefProxy.__new__(cls, x, y)


    structref.define_proxy(Point, PointType, ["x", "y"])


    @overload_method(PointType, "norm")
    def ol_norm(self):
        def impl(self):
            return np.sqrt(self.x * self.x + self.y * self.y)
        return impl


    @njit
    def use(a, n):
        p = Point(3.0, 4.0)
        return norm2(a), draw(a), draw(a, n), specialize(3), p.norm()


    use(np.linspace(0.0, 1.0, 5), 3)
    """
)

# Every dispatcher the run compiled for a function defined inside another one of the program (the
# implementations its typing functions returned): name, first line, argument types, return type.
PROBE = """
import gc, json, runpy
runpy.run_path("overload_impls.py")
from numba.core.dispatcher import Dispatcher
compiled = []
for d in gc.get_objects():
    if not isinstance(d, Dispatcher):
        continue
    code = d.py_func.__code__
    if not code.co_filename.endswith("overload_impls.py") or "<locals>" not in d.py_func.__qualname__:
        continue
    for args, cres in d.overloads.items():
        compiled.append(
            [d.py_func.__qualname__, code.co_firstlineno, [str(a) for a in args], str(cres.signature.return_type)]
        )
print(json.dumps(sorted(compiled)))
"""


def _listed_implementations(report: dict[str, Any]) -> list[list[Any]]:
    return sorted(
        [f["name"], f["line"], s["args"], s["return_type"]]
        for f in report["functions"]
        if "<locals>" in f["name"]
        for s in f["signatures"]
    )


def test_implementations_typed_at_first_sight_as_numba_compiles_them(tmp_path: Path) -> None:
    (tmp_path / "overload_impls.py").write_text(SOURCE)
    report = check_json(tmp_path, "--variables", "overload_impls.py")
    assert not (tmp_path / ".numba-lens").exists()  # nothing recorded: first sight
    errors = [d["message"] for d in report["diagnostics"] if d["severity"] == "error"]
    assert errors == []
    compiled = run_probe(tmp_path, PROBE)
    assert compiled, "the run compiled no implementation"
    assert _listed_implementations(report) == compiled, json.dumps(report["functions"], indent=1)
    # the implementation's parameters are shown on its own `def` line
    impl = next(f for f in report["functions"] if f["name"] == "ol_norm2.<locals>.impl")
    assert [(v["name"], v["line"]) for v in impl["signatures"][0]["variables"] if v["is_arg"]] == [
        ("a", impl["line"])
    ]
