"""A @jitclass's constructor calls from Python (`Bag(21)`) type its __init__ as Numba compiles it: the
instance type first, then the arguments; its method calls on instances (`bag.increment(3)`) type the
method. The truth is what a real run compiled (the methods' dispatchers' signatures after the script
ran)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from analysis_helpers import Workspace, signatures_of

SOURCE = """\
import numpy as np
from numba import float32, int32
from numba.experimental import jitclass

spec = [("value", int32), ("array", float32[:])]


@jitclass(spec)
class Bag:
    def __init__(self, value, scale=1.0):
        self.value = value * 2 if scale > 1.0 else value
        self.array = np.zeros(value, dtype=np.float32)

    def increment(self, val):
        return self.add(val)

    def add(self, val):
        for i in range(self.array.size):
            self.array[i] += val
        return self.array


class Counter:
    def increment(self, val):
        return val + 1


def main():
    bag = Bag(21)
    other = Bag(3, 2.5)
    print(bag.increment(3), other.value)
    print(Counter().increment(2.5))  # a Python class's method of the same name: not Bag's


if __name__ == "__main__":
    main()
"""

TRUTH = """\
import json, runpy, sys
namespace = runpy.run_path(sys.argv[1], run_name="__main__")
methods = namespace["Bag"].class_type.jit_methods
print(json.dumps({n: sorted([[str(t) for t in s] for s in m.signatures]) for n, m in methods.items()}))
"""


def test_jitclass_constructor_calls_type_init_as_a_run_compiles_it(ws: Workspace) -> None:
    path = ws.write("pc_jitclass.py", SOURCE)
    result = ws.analyze("pc_jitclass.py", SOURCE)
    ran = subprocess.run(
        [sys.executable, "-c", TRUTH, str(path)], capture_output=True, text=True, timeout=300, check=True
    )
    # the run's instance type names its class by address: not a type difference
    compiled = {
        name: [[re.sub(r"#[0-9a-f]+<", "<", t) for t in s] for s in signatures]
        for name, signatures in json.loads(ran.stdout.splitlines()[-1]).items()
    }
    found = sorted(
        [list(args) for source, args in signatures_of(result, "Bag.__init__") if source == "python-caller"]
    )
    assert found == compiled["__init__"]
    assert len(found) == 1  # `Bag(21)` passes the default 1.0 as a float64, as `Bag(3, 2.5)` does
    increment = [
        list(args) for source, args in signatures_of(result, "Bag.increment") if source == "python-caller"
    ]
    assert increment == compiled["increment"] and len(increment) == 1
