"""Types at first sight for the styles scripts use beyond plain arrays and numbers: typed containers built
in Python, a jitted function passed as an argument, a jitclass's static methods, property getters and
methods called from jitted code, argparse values from a helper, a lazy @vectorize ufunc called with
arrays, and a Python helper whose parameters come from its own caller. The truth is what a real run of
the same script compiled (each dispatcher's signatures after it ran); what the analysis leaves unknown
is listed too, so that a derived type is either Numba's or absent."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from analysis_helpers import Workspace, signatures_of

from pyserver.analysis.model import FileResult

# Prints {name: sorted signatures} of the named jitted functions, jitclass members ("Class.member") and
# lazy ufuncs of the script after it ran.
TRUTH = """\
import contextlib, io, json, re, runpy, sys
with contextlib.redirect_stdout(io.StringIO()):
    namespace = runpy.run_path(sys.argv[1], run_name="__main__")
found = {}
for name in sys.argv[2:]:
    owner, _, member = name.partition(".")
    value = namespace[owner]
    if member:
        ct = value.class_type
        value = ct.jit_methods.get(member) or ct.jit_static_methods.get(member)
        value = value or ct.jit_props[member]["get"]
    if hasattr(value, "_dispatcher"):  # a lazy ufunc: its loops
        sigs = [s.args for s in value._dispatcher.overloads]
    else:
        sigs = value.signatures
    found[name] = sorted([re.sub(r"#[0-9a-f]+<", "<", str(t)) for t in s] for s in sigs)
print(json.dumps(found))
"""


def _compiled(path: str, names: list[str]) -> dict[str, list[list[str]]]:
    ran = subprocess.run(
        [sys.executable, "-c", TRUTH, path, *names], capture_output=True, text=True, timeout=300, check=True
    )
    return json.loads(ran.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def _found(result: FileResult, name: str) -> list[list[str]]:
    return sorted(list(args) for _source, args in signatures_of(result, name))


CONTAINERS = """\
import numpy as np
from numba import njit, types
from numba.typed import Dict, List


@njit
def count_words(words):
    counts = Dict.empty(key_type=types.unicode_type, value_type=types.int64)
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return counts


@njit
def most_common(counts):
    best, best_n = "", -1
    for k, v in counts.items():
        if v > best_n:
            best, best_n = k, v
    return best, best_n


@njit
def total(values):
    s = 0.0
    for v in values:
        s += v
    return s


@njit
def size_of(values):
    return len(values)


@njit
def lookup(table):
    return len(table)


words = List()
for w in "the quick brown fox jumps over the lazy dog the end".split():
    words.append(w)
print(most_common(count_words(words)))

declared = List.empty_list(types.int64)
for k in range(10):
    declared.append(k * k)
print(total(declared))

floats = List([1.5, 2.5])
print(total(floats))

table = Dict.empty(key_type=types.int64, value_type=types.float64)
table[3] = 1.5
print(lookup(table))

arrays = List()
arrays.append(np.zeros(3))
print(size_of(arrays))

# declared types: what is put in is cast to them, in Python as in Numba
narrow = Dict.empty(key_type=types.int32, value_type=types.float32)
narrow[1] = 2.3
print(lookup(narrow))

singles = List.empty_list(types.float32)
singles.append(1)
print(total(singles))

# Unknown at first sight: which item comes first decides the list's type at run time; a strided view
# may be C-contiguous at run time; a Python dict is no typed Dict.
mixed = List()
mixed.append(2.5 + 0j)
mixed.append(1.5)
print(size_of(mixed))

strided = List()
strided.append(np.zeros(6)[::2])
print(size_of(strided))

plain = {}
plain[1] = 2.0
try:
    lookup(plain)
except Exception:
    pass
"""


def test_typed_containers_built_in_python_are_typed_as_their_dispatcher_sees_them(ws: Workspace) -> None:
    path = ws.write("fs_containers.py", CONTAINERS)
    result = ws.analyze("fs_containers.py", CONTAINERS)
    names = ["count_words", "most_common", "total", "size_of", "lookup"]
    compiled = _compiled(str(path), names)
    found = {name: _found(result, name) for name in names}
    for name in ["count_words", "most_common", "total", "lookup"]:
        assert found[name] == compiled[name], name
    # size_of ran with ListType[array(float64, 1d, C)], ListType[complex128] (the mixed list) and the
    # strided list's ListType[array(float64, 1d, A)]: only the first is certain before the run
    assert found["size_of"] == [["ListType[array(float64, 1d, C)]"]]
    assert found["size_of"][0] in compiled["size_of"] and len(compiled["size_of"]) == 3


FUNCTIONS = """\
from numba import njit


@njit
def growth(x):
    return 0.3 * x * (1.0 - x)


@njit
def euler(step, x0, dt, n):
    x = x0
    for _ in range(n):
        x = x + dt * step(x)
    return x


print(euler(growth, 0.1, 0.05, 200))
"""


def test_a_jitted_function_passed_from_python_is_a_dispatcher_argument(ws: Workspace) -> None:
    path = ws.write("fs_functions.py", FUNCTIONS)
    result = ws.analyze("fs_functions.py", FUNCTIONS)
    compiled = _compiled(str(path), ["euler", "growth"])
    assert signatures_of(result, "euler") == [
        ("python-caller", ("dispatcher(growth)", "float64", "float64", "int64"))
    ]
    assert re.fullmatch(r"type\(CPUDispatcher\(<function growth at 0x[0-9a-f]+>\)\)", compiled["euler"][0][0])
    assert _found(result, "euler")[0][1:] == compiled["euler"][0][1:]
    assert _found(result, "growth") == compiled["growth"]  # from euler's inference: its jitted caller
    assert signatures_of(result, "growth")[0][0] == "caller"


JITCLASS = """\
import numpy as np
from numba import float32, int32, njit
from numba.experimental import jitclass


@jitclass([("capacity", int32), ("readings", float32[:])])
class Tank:
    def __init__(self, capacity):
        self.capacity = capacity
        self.readings = np.zeros(capacity, dtype=np.float32)

    @property
    def count(self):
        return self.readings.size

    def record(self, level):
        for i in range(self.count):
            self.readings[i] = level
        return self.weighted(0.5)

    def weighted(self, w):
        return self.readings * w

    def expand(self, extra):
        self.capacity += extra

    @staticmethod
    def mix(a, b):
        return a * b


@njit
def enlarge(tank):
    tank.expand(3)
    return tank.capacity


@njit
def build(n):
    return Tank(n).capacity


def run_tanks():
    tank = Tank(4)
    for level in range(2):
        tank.record(0.25 * level)
        tank.expand(level)
    print(enlarge(tank), tank.mix(2, 3), Tank.mix(1.5, 2.0), build(np.int32(6)))


run_tanks()
"""


def test_jitclass_members_from_python_and_jitted_code(ws: Workspace) -> None:
    path = ws.write("fs_jitclass.py", JITCLASS)
    result = ws.analyze("fs_jitclass.py", JITCLASS)
    names = ["Tank.__init__", "Tank.count", "Tank.record", "Tank.weighted", "Tank.expand", "Tank.mix"]
    compiled = _compiled(str(path), names)
    for name in names:
        assert _found(result, name) == compiled[name], name
    assert len(compiled["Tank.__init__"]) == 2  # int64 from Python, int32 from the jitted `build`


ARGPARSE_AND_HELPERS = """\
import argparse

import numpy as np
from numba import njit, vectorize


@njit
def steps_to_leave(c, cap):
    z = c
    count = 0
    while count < cap and z.real * z.real + z.imag * z.imag < 9.0:
        z = z * z * 0.5 + c
        count += 1
    return count


@njit
def sweep(cols, rows, cap):
    out = np.empty((rows, cols), dtype=np.int16)
    for r in range(rows):
        for q in range(cols):
            out[r, q] = steps_to_leave(complex(0.05 * q - 1.0, 0.05 * r - 0.5), cap)
    return out


@njit
def nearest(samples, anchors):
    owner = np.zeros(samples.shape[0], dtype=np.int32)
    for i in range(samples.shape[0]):
        smallest = np.inf
        for j in range(anchors.shape[0]):
            gap = np.abs(samples[i] - anchors[j]).max()
            if gap < smallest:
                smallest = gap
                owner[i] = j
    return owner


@njit
def tally(xs, nbins, left, right):
    counts = np.zeros(nbins, dtype=np.int32)
    step = (right - left) / nbins
    for x in xs:
        b = int((x - left) // step)
        if b >= 0 and b < nbins:
            counts[b] += 1
    return counts


@vectorize
def logistic(x, k, x0):
    return 1.0 / (1.0 + np.exp(-k * (x - x0)))


@vectorize
def halve(x):
    return x * 0.5


def options(argv=None):
    ap = argparse.ArgumentParser(description="a sweep")
    ap.add_argument("--cols", type=int, default=8)
    ap.add_argument("--rows", type=int, default=5)
    ap.add_argument("--cap", type=int, default=30)
    return ap.parse_args(argv)


def group(samples, n, rounds=2):
    anchors = samples[:n].copy()
    for _ in range(rounds):
        owner = nearest(samples, anchors)
    return owner


if __name__ == "__main__":
    opts = options([])
    print(sweep(opts.cols, opts.rows, opts.cap).sum())
    cloud = np.vstack([np.random.uniform(size=(15, 3)), np.random.uniform(size=(15, 3)) + 2.0])
    print(group(cloud, 3))
    noise = np.random.standard_normal(size=500)
    print(tally(noise, 8, -3.0, 3.0))
    print(logistic(np.linspace(0.0, 2.0, 7), 2.0, 1.0))
    # two loops: which compile depends on the order of the calls (the int64 one is cast to float64)
    print(halve(np.arange(4.0)), halve(np.arange(4)))
"""


def test_script_helpers_argparse_and_lazy_ufuncs(ws: Workspace) -> None:
    path = ws.write("fs_script.py", ARGPARSE_AND_HELPERS)
    result = ws.analyze("fs_script.py", ARGPARSE_AND_HELPERS)
    names = ["steps_to_leave", "sweep", "nearest", "tally", "logistic", "halve"]
    compiled = _compiled(str(path), names)
    for name in ["steps_to_leave", "sweep", "nearest", "tally", "logistic"]:
        assert _found(result, name) == compiled[name], name
    assert signatures_of(result, "logistic") == [("python-caller", ("float64", "float64", "float64"))]
    assert _found(result, "halve") == []  # the run compiled only float64's loop
    assert compiled["halve"] == [["float64"]]
