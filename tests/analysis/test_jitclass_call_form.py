"""A jitclass made by a call instead of a decorator (`Point = jitclass(spec)(Point)`, `L1J = jitclass(L1,
spec)`, as older code and penalty libraries write it), and a value a module-level jit call's dispatcher
returns (`y = fast(x)` after `fast = njit(slow)`): the class's methods are its members, its constructor
calls type `__init__`, and the top-level values are typed as Numba types them, from what the module's
jit calls made when it loaded."""

from __future__ import annotations

from pathlib import Path

from analysis_helpers import check_json, run_probe, shown_args

SOURCE = """\
import numpy as np
from numba import float64, int64, njit
from numba.experimental import jitclass


class L1:
    def __init__(self, alpha):
        self.alpha = alpha

    def value(self, w):
        return self.alpha * np.sum(np.abs(w))


L1J = jitclass(L1, [("alpha", float64)])


class Counter:
    def __init__(self, start):
        self.count = start

    def bump(self, k):
        self.count += k
        return self.count


Counter = jitclass([("count", int64)])(Counter)


def slow(x):
    return x * 2


fast = njit(slow)


@njit
def penalty(pen, w):
    return pen.value(w)


@njit
def shifted(y):
    return y + 1


pen = L1J(0.1)
penalty(pen, np.ones(3))
counter = Counter(3)
counter.bump(2)
y = fast(np.ones(3))
shifted(y)
"""

TRUTH = """\
import json
import re
import penalties as m


def args(dispatcher):
    # a jitclass instance type's str carries its class's id where the method's signature holds it
    return [[re.sub("#[0-9a-f]+", "", str(a)) for a in s] for s in dispatcher.signatures]


methods_l1 = m.L1J.class_type.jit_methods
methods_counter = m.Counter.class_type.jit_methods
print(json.dumps({
    "penalty": args(m.penalty),
    "shifted": args(m.shifted),
    "L1.__init__": args(methods_l1["__init__"]),
    "L1.value": args(methods_l1["value"]),
    "Counter.__init__": args(methods_counter["__init__"]),
    "Counter.bump": args(methods_counter["bump"]),
}))
"""


def test_jitclasses_made_by_calls_and_jit_made_values_are_typed(tmp_path: Path) -> None:
    (tmp_path / "penalties.py").write_text(SOURCE)
    truth = run_probe(tmp_path, TRUTH)
    report = check_json(tmp_path, "penalties.py")
    shown = shown_args(report)
    assert {n: shown.get(n) for n in truth} == truth
    assert truth["L1.value"] == [["instance.jitclass.L1<alpha:float64>", "array(float64, 1d, C)"]]
    assert truth["Counter.bump"] == [["instance.jitclass.Counter<count:int64>", "int64"]]
    kinds = {f["name"]: f["kind"] for f in report["functions"]}
    assert kinds["L1.value"] == kinds["Counter.bump"] == "jitclass-method"
    assert report["diagnostics"] == []
