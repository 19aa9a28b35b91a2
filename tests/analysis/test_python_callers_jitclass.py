"""A @jitclass's constructor calls from Python (`Bag(21)`) type its __init__ as Numba compiles it: the
instance type first, then the arguments. The truth is what a real run compiled (the __init__
dispatcher's signatures after the script ran)."""

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
        for i in range(self.array.size):
            self.array[i] += val
        return self.array


def main():
    bag = Bag(21)
    other = Bag(3, 2.5)
    print(bag.increment(3), other.value)


if __name__ == "__main__":
    main()
"""

TRUTH = """\
import json, runpy, sys
namespace = runpy.run_path(sys.argv[1], run_name="__main__")
init = namespace["Bag"].class_type.jit_methods["__init__"]
print(json.dumps(sorted([[str(t) for t in s] for s in init.signatures])))
"""


def test_jitclass_constructor_calls_type_init_as_a_run_compiles_it(ws: Workspace) -> None:
    path = ws.write("pc_jitclass.py", SOURCE)
    result = ws.analyze("pc_jitclass.py", SOURCE)
    ran = subprocess.run(
        [sys.executable, "-c", TRUTH, str(path)], capture_output=True, text=True, timeout=300, check=True
    )
    # the run's instance type names its class by address: not a type difference
    compiled = [[re.sub(r"#[0-9a-f]+<", "<", t) for t in s] for s in json.loads(ran.stdout.splitlines()[-1])]
    found = sorted(
        [list(args) for source, args in signatures_of(result, "Bag.__init__") if source == "python-caller"]
    )
    assert found == compiled
    assert len(found) == 1  # `Bag(21)` passes the default 1.0 as a float64, as `Bag(3, 2.5)` does
