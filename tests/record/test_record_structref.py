"""`record` stores the types a program passes that are rebuilt exactly from what is importable: a
numpy.random.Generator (one plain Numba type) and a structref instance (its class, importable, and the
fields its constructor takes, the class adding fields of its own as numba-kdtree's does); `check` then
types the functions from the recorded run. A structref whose class is not importable is refused."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from numba import types
from record_helpers import pyserver

from pyserver.record import types_codec

TREE = """
import numpy as np
from numba import njit, types
from numba.experimental import structref

_POINTER = types.MemInfoPointer(types.voidptr)


@structref.register
class TreeType(types.StructRef):
    def __init__(self, fields):
        # a field of its own before the constructor's, as numba-kdtree's KDTreeNumbaType has
        super().__init__([("handle", types.voidptr), *fields])

    def preprocess_fields(self, fields):
        return [(name, types.unliteral(t)) for name, t in fields]


class Tree(structref.StructRefProxy):
    def __new__(cls, data, size):
        return structref.StructRefProxy.__new__(cls, data, size)


structref.define_proxy(Tree, TreeType, ["data", "size"])


@njit
def total(tree, scale):
    s = 0.0
    for i in range(tree.size):
        s += tree.data[i] * scale
    return s


@njit
def noisy(rng, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = rng.normal()
    return out
"""

PROGRAM = """
import numpy as np
from tree import Tree, noisy, total

t = Tree(np.arange(4.0), 4)
print(total(t, 2.0))
print(noisy(np.random.default_rng(0), 3).shape)
"""


def test_structref_and_generator_arguments_are_recorded_and_typed(tmp_path: Path) -> None:
    (tmp_path / "tree.py").write_text(TREE)
    (tmp_path / "prog.py").write_text(PROGRAM)
    proc = pyserver(tmp_path, "record", "--", sys.executable, "prog.py")
    assert proc.returncode == 0, proc.stderr
    data = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())
    (total_entry,) = data["functions"]["tree.py::total"]
    (noisy_entry,) = data["functions"]["tree.py::noisy"]
    assert noisy_entry["args"] == ["NumPyRandomGeneratorType", "int64"]
    assert total_entry["args"][0].startswith("numba.TreeType(('handle', void*), ('data', ")
    # exact encodings: the structref by its class and constructor fields (not the class's own)
    tree_encoding = total_entry["types"][0]
    assert tree_encoding["kind"] == "structref"
    assert tree_encoding["class"]["qualname"] == "TreeType"
    assert [name for name, _ in tree_encoding["fields"]] == ["data", "size"]
    assert noisy_entry["types"][0] == {"kind": "numpy_generator"}

    checked = pyserver(tmp_path, "check", "tree.py", "--format", "json", "--variables")
    payload = json.loads(checked.stdout)
    assert [d["message"] for d in payload["diagnostics"] if d["severity"] == "error"] == []
    by_name = {f["name"]: f for f in payload["functions"]}
    for name, entry in (("total", total_entry), ("noisy", noisy_entry)):
        (signature,) = by_name[name]["signatures"]
        assert signature["source"] == "recorded" and signature["ok"], signature
        assert signature["args"] == entry["args"]
        assert signature["variables"], signature
    assert by_name["total"]["signatures"][0]["return_type"] == "float64"
    assert by_name["noisy"]["signatures"][0]["return_type"] == "array(float64, 1d, C)"


def test_a_structref_of_the_base_class_is_refused() -> None:
    # a plain StructRef names no class to rebuild it from: unknown, never approximated
    assert types_codec.encode(types.StructRef([("x", types.int64)])) is None
