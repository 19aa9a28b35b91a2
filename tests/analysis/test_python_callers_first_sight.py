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
def decay(t, y):
    return -0.5 * y


@njit
def rk4(f, y0, t0, t1, steps):
    h = (t1 - t0) / steps
    y, t = y0, t0
    for _ in range(steps):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h * k1 / 2)
        y = y + h * (k1 + k2) / 2
        t += h
    return y


print(rk4(decay, 1.0, 0.0, 2.0, 100))
"""


def test_a_jitted_function_passed_from_python_is_a_dispatcher_argument(ws: Workspace) -> None:
    path = ws.write("fs_functions.py", FUNCTIONS)
    result = ws.analyze("fs_functions.py", FUNCTIONS)
    compiled = _compiled(str(path), ["rk4", "decay"])
    assert signatures_of(result, "rk4") == [
        ("python-caller", ("dispatcher(decay)", "float64", "float64", "float64", "int64"))
    ]
    assert re.fullmatch(r"type\(CPUDispatcher\(<function decay at 0x[0-9a-f]+>\)\)", compiled["rk4"][0][0])
    assert _found(result, "rk4")[0][1:] == compiled["rk4"][0][1:]
    assert _found(result, "decay") == compiled["decay"]  # from rk4's inference: its jitted caller
    assert signatures_of(result, "decay")[0][0] == "caller"


JITCLASS = """\
import numpy as np
from numba import float32, int32, njit
from numba.experimental import jitclass


@jitclass([("value", int32), ("array", float32[:])])
class Bag:
    def __init__(self, value):
        self.value = value
        self.array = np.zeros(value, dtype=np.float32)

    @property
    def size(self):
        return self.array.size

    def fill(self, val):
        for i in range(self.size):
            self.array[i] = val
        return self.scaled(2.0)

    def scaled(self, factor):
        return self.array * factor

    def grow(self, by):
        self.value += by

    @staticmethod
    def add(x, y):
        return x + y


@njit
def use(bag):
    bag.grow(2)
    return bag.value


@njit
def make(n):
    return Bag(n).value


def simulate():
    bag = Bag(5)
    for k in range(3):
        bag.fill(1.5 * k)
        bag.grow(k)
    print(use(bag), bag.add(1, 2), Bag.add(3.5, 4.5), make(np.int32(4)))


simulate()
"""


def test_jitclass_members_from_python_and_jitted_code(ws: Workspace) -> None:
    path = ws.write("fs_jitclass.py", JITCLASS)
    result = ws.analyze("fs_jitclass.py", JITCLASS)
    names = ["Bag.__init__", "Bag.size", "Bag.fill", "Bag.scaled", "Bag.grow", "Bag.add"]
    compiled = _compiled(str(path), names)
    for name in names:
        assert _found(result, name) == compiled[name], name
    assert len(compiled["Bag.__init__"]) == 2  # int64 from Python, int32 from the jitted `make`


ARGPARSE_AND_HELPERS = """\
import argparse

import numpy as np
from numba import njit, vectorize


@njit
def escape_time(c, max_iter):
    z = 0j
    for n in range(max_iter):
        z = z * z + c
        if abs(z) > 2.0:
            return n
    return max_iter


@njit
def render(width, height, max_iter):
    image = np.zeros((height, width), dtype=np.int32)
    for row in range(height):
        for col in range(width):
            c = complex(-2.0 + 3.0 * col / width, -1.0 + 2.0 * row / height)
            image[row, col] = escape_time(c, max_iter)
    return image


@njit
def assign(points, centers):
    labels = np.empty(points.shape[0], dtype=np.int64)
    for i in range(points.shape[0]):
        best, best_d = 0, np.inf
        for k in range(centers.shape[0]):
            d = ((points[i] - centers[k]) ** 2).sum()
            if d < best_d:
                best, best_d = k, d
        labels[i] = best
    return labels


@njit
def histogram(values, bins, lo, hi):
    counts = np.zeros(bins, dtype=np.int64)
    width = (hi - lo) / bins
    for v in values:
        k = int((v - lo) / width)
        if 0 <= k < bins:
            counts[k] += 1
    return counts


@vectorize
def gauss(x, mu, sigma):
    return np.exp(-0.5 * ((x - mu) / sigma) ** 2)


@vectorize
def twice(x):
    return 2 * x


def parse_args(argv=None):
    \"\"\"The script's options.\"\"\"
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=12)
    parser.add_argument("--height", type=int, default=6)
    parser.add_argument("--iters", type=int, default=20)
    return parser.parse_args(argv)


def cluster(points, k, iterations=3):
    centers = points[:k].copy()
    for _ in range(iterations):
        labels = assign(points, centers)
    return labels


if __name__ == "__main__":
    args = parse_args([])
    print(render(args.width, args.height, args.iters).sum())
    pts = np.concatenate([np.random.randn(20, 2), np.random.randn(20, 2) + 5])
    print(cluster(pts, 2))
    data = np.random.normal(size=1000)
    print(histogram(data, 10, -4.0, 4.0))
    print(gauss(np.linspace(-1, 1, 5), 0.0, 1.0))
    # two loops: which compile depends on the order of the calls (the int64 one is cast to float64)
    print(twice(np.arange(3.0)), twice(np.arange(3)))
"""


def test_script_helpers_argparse_and_lazy_ufuncs(ws: Workspace) -> None:
    path = ws.write("fs_script.py", ARGPARSE_AND_HELPERS)
    result = ws.analyze("fs_script.py", ARGPARSE_AND_HELPERS)
    names = ["escape_time", "render", "assign", "histogram", "gauss", "twice"]
    compiled = _compiled(str(path), names)
    for name in ["escape_time", "render", "assign", "histogram", "gauss"]:
        assert _found(result, name) == compiled[name], name
    assert signatures_of(result, "gauss") == [("python-caller", ("float64", "float64", "float64"))]
    assert _found(result, "twice") == []  # the run compiled only float64's loop
    assert compiled["twice"] == [["float64"]]
