"""Typed containers built at a module's top level and passed to a jitted function: a typed Dict or List
whose stated item type is an array type (`value_type=types.float64[:]`), a typed Set (`Set.empty`, or
typed by its first `add`). The type found statically must be the one the dispatcher compiled for when
the module really ran; a container whose items' layout is decided at run time (`List()` given a strided
view) is left unknown, and says why."""

from __future__ import annotations

import json

from analysis_helpers import Workspace, by_code, run_probe, signatures_of

DERIVED = """\
import numpy as np
from numba import njit
from numba.core import types
from numba.typed import Dict, List, Set


@njit
def move(d):
    d['posx'] += 1.0


@njit
def remove_elem(s, elem):
    s.discard(elem)


@njit
def size(c):
    return len(c)


d = Dict.empty(key_type=types.unicode_type, value_type=types.float64[:])
d['posx'] = np.asarray([1, 0.5, 2], dtype='f8')
move(d)

s = Set.empty(types.unicode_type)
s.add("One")
remove_elem(s, "One")

floats = Set()
floats.add(1.5)
size(floats)

rows = List.empty_list(types.float64[:])
rows.append(np.zeros(3))
size(rows)

grid = Dict.empty(types.int64, types.float64[:, ::1])
grid[1] = np.zeros((2, 2))
size(grid)
"""

UNDECIDED = """\
import numpy as np
from numba import njit
from numba.typed import Dict, List


@njit
def size(c):
    return len(c)


@njit
def count(c):
    return len(c)


strided = List()
strided.append(np.zeros(6)[::2])
size(strided)

columns = Dict()
columns[1] = np.zeros((3, 3))[:, 0]
count(columns)
"""

# The signatures each dispatcher compiled when the module really ran
COMPILED = """\
import json, runpy, sys
from numba.core.registry import CPUDispatcher
namespace = runpy.run_path(sys.argv[1])
print(json.dumps({name: sorted([str(t) for t in s] for s in value.signatures)
                  for name, value in namespace.items() if isinstance(value, CPUDispatcher)}))
"""


def _found(
    ws: Workspace, name: str, source: str
) -> tuple[dict[str, list[list[str]]], dict[str, list[list[str]]]]:
    ws.write(name, source)
    result = ws.analyze(name, source)
    compiled = run_probe(ws.root, COMPILED.replace("sys.argv[1]", repr(name)))
    found = {f: sorted(list(args) for _source, args in signatures_of(result, f)) for f in compiled}
    return found, compiled


def test_typed_containers_with_array_items_and_typed_sets_get_the_compiled_types(ws: Workspace) -> None:
    found, compiled = _found(ws, "pc_typed_containers.py", DERIVED)
    assert found == compiled, json.dumps(found, indent=1)
    assert any("array(float64, 1d, A)" in args[0] for args in found["move"])
    assert any(args[0].startswith("SetType[unicode_type]") for args in found["remove_elem"])


def test_containers_of_arrays_whose_layout_is_decided_at_run_time_stay_unknown(ws: Workspace) -> None:
    source = UNDECIDED
    ws.write("pc_typed_containers_undecided.py", source)
    result = ws.analyze("pc_typed_containers_undecided.py", source)
    assert signatures_of(result, "size") == [] and signatures_of(result, "count") == []
    reasons = [d.message for d in by_code(result, "no-signature")]
    assert len(reasons) == 2
    assert all("arrays whose layout is decided at run time" in r for r in reasons), reasons


UNTYPED = """\
import numpy as np
from numba import njit


@njit
def size(c):
    return len(c)


@njit
def total(x):
    return x.sum()


size({1, 2})
total(np.linspace(0, 1, 5, dtype='f4'))
"""


def test_what_stays_unknown_says_which_step_gave_nothing(ws: Workspace) -> None:
    # a set display: Numba types it, what the dispatcher makes of the value is not derived; np.linspace's
    # dtype=: Numba cannot type the expression itself
    ws.write("pc_untyped_reasons.py", UNTYPED)
    result = ws.analyze("pc_untyped_reasons.py", UNTYPED)
    reasons = {d.message.split("'")[1]: d.message for d in by_code(result, "no-signature")}
    assert "passes an argument that Numba types as set(int64)" in reasons["size"]
    assert "not derived without running the program" in reasons["size"]
    assert "cannot type the expression 'np.linspace(0, 1, 5, dtype='f4')'" in reasons["total"]
