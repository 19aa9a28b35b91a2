"""Python callers of a jitted frame holding objects of every kind (tests/debug/test_dap_python_callers.py).
Before the jitted call the program writes each caller variable's repr() to the JSON file named by
NUMBA_LENS_EXPECTED, which the test compares with what gdb reads from memory."""

import json
import os
from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.typed import Dict, List

Stats = namedtuple("Stats", ["count", "mean"])
LIMIT = 3
NAMES = ["ab", "cd"]


class Box:
    def __init__(self, width, label):
        self.width = width
        self.label = label
        self.tags = ("x", 2)
        self.counts = List([5, 6])


@njit(debug=True)
def scale(a, factor):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * factor  # STOP
    return total


def main():
    box = Box(3, "crate")
    stats = Stats(4, 2.5)
    pair = (1, "two", None)
    items = [1, 2.5, "x", [True, False]]
    table = {"a": 1, "b": [2, 3]}
    seen = {7}
    arr = np.arange(4.0)
    typed = List([1, 2, 3])
    weights = Dict.empty(key_type=types.unicode_type, value_type=types.float64)
    weights["a"] = 1.5
    weights["bb"] = -2.0
    weights["ccc"] = 0.25
    del weights["bb"]
    untyped = List()
    spans = Dict.empty(key_type=types.unicode_type, value_type=types.UniTuple(types.int64, 2))
    spans["x"] = (1, 2)
    expected = {
        "box": {"width": repr(box.width), "label": repr(box.label), "tags": repr(box.tags)},
        "typed_items": [repr(x) for x in typed],
        "stats": repr(stats),
        "pair": repr(pair),
        "items": repr(items),
        "table": repr(table),
        "seen": repr(seen),
        "arr": [repr(float(x)) for x in arr],
        # Typed containers as the jitted side shows them: the pure-Python list's and dict's repr.
        "typed": repr(list(typed)),
        "weights": repr(dict(weights)),
        "weights_items": {repr(k): repr(v) for k, v in weights.items()},
        "counts": repr(list(box.counts)),
        "untyped": repr(list(untyped)),
        "globals": {"LIMIT": repr(LIMIT), "NAMES": repr(NAMES)},
    }
    path = os.environ.get("NUMBA_LENS_EXPECTED")
    if path:
        with open(path, "w") as handle:
            json.dump(expected, handle)
    result = scale(arr, 2.0)
    print(result, len(typed), len(weights), len(untyped), len(spans))


if __name__ == "__main__":
    main()
