"""An instance of a StructRef proxy made at the top level (`p = Point(3.0, 4.0)`, with
`structref.define_proxy(Point, PointType, ["x", "y"])` in the module, as Numba's documentation writes
it) is typed as its constructor types it, which is the type the dispatcher gives the running object. A
class whose instances an extension types only from the running object (`typeof_impl.register`) gives
no types, and the note says why."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe, shown_args

SOURCE = """\
import numpy as np
from numba import njit
from numba.core import types
from numba.experimental import structref
from numba.extending import typeof_impl


@structref.register
class PointType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Point(structref.StructRefProxy):
    def __new__(cls, x, y):
        return structref.StructRefProxy.__new__(cls, x, y)


structref.define_proxy(Point, PointType, ["x", "y"])


class Tag:
    def __init__(self, value):
        self.value = value


class TagType(types.Type):
    def __init__(self):
        super().__init__(name="Tag")


@typeof_impl.register(Tag)
def typeof_tag(val, c):
    return TagType()


@njit
def norm(p):
    return np.sqrt(p.x * p.x + p.y * p.y)


@njit
def label(tag):
    return 1


p = Point(3.0, np.arange(3.0))
norm(p)
label(Tag(2))
"""

TRUTH = """\
import json
import points

print(json.dumps([[str(a) for a in s] for s in points.norm.signatures]))
"""


def test_a_structref_proxy_instance_is_typed_as_its_constructor_makes_it(tmp_path: Path) -> None:
    (tmp_path / "points.py").write_text(SOURCE.replace("label(Tag(2))\n", ""))
    truth = run_probe(tmp_path, TRUTH)
    assert truth == [["numba.PointType(('x', float64), ('y', Array(float64, 1, 'C', False, aligned=True)))"]]
    (tmp_path / "points.py").write_text(SOURCE)
    report = check_json(tmp_path, "points.py")
    assert shown_args(report)["norm"] == truth
    [note] = [d for d in report["diagnostics"] if d["function"] == "label" and d["code"] == "no-signature"]
    assert "'Tag' is a class an extension of Numba types (type_callable, typeof_impl)" in note["message"]
