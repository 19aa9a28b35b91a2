"""Python callers of a jitted frame holding objects of every kind (tests/debug/test_dap_python_callers.py).
Before the jitted call the program writes each caller variable's repr() to the JSON file named by
NUMBA_LENS_EXPECTED, which the test compares with what gdb reads from memory."""

import json
import os
from collections import namedtuple

import numpy as np
from numba import njit
from numba.typed import List

Stats = namedtuple("Stats", ["count", "mean"])
LIMIT = 3
NAMES = ["ab", "cd"]


class Box:
    def __init__(self, width, label):
        self.width = width
        self.label = label
        self.tags = ("x", 2)


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
    expected = {
        "box": {"width": repr(box.width), "label": repr(box.label), "tags": repr(box.tags)},
        "stats": repr(stats),
        "pair": repr(pair),
        "items": repr(items),
        "table": repr(table),
        "seen": repr(seen),
        "arr": [repr(float(x)) for x in arr],
        "globals": {"LIMIT": repr(LIMIT), "NAMES": repr(NAMES)},
    }
    path = os.environ.get("NUMBA_LENS_EXPECTED")
    if path:
        with open(path, "w") as handle:
            json.dump(expected, handle)
    result = scale(arr, 2.0)
    print(result, len(typed))


if __name__ == "__main__":
    main()
