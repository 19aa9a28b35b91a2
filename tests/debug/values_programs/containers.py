"""Strings, typed List and Dict, a jitclass instance, record/datetime/complex arrays, a large array."""

import sys
from pathlib import Path

import numpy as np
from numba import njit, types
from numba.experimental import jitclass
from numba.typed import Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import write_expected


@jitclass([("x", types.float64), ("n", types.int64)])
class Acc:
    def __init__(self, x, n):
        self.x = x
        self.n = n


@njit(debug=True)
def containers(recs, dts, cz, big, f32):
    s = "héllo" + str(len(recs))
    lst = List()
    for i in range(5):
        lst.append(i * 1.5)
    d = Dict.empty(types.unicode_type, types.int64)
    d["a"] = 1
    d["bb"] = 2
    acc = Acc(2.5, 3)
    k = 7  # STOP
    k += len(s) + len(lst) + len(d) + acc.n
    return k, recs[1].w, dts[0], cz[1], big[0], f32[0]


rec_t = np.dtype([("id", np.int32), ("w", np.float64)])
recs = np.zeros(3, dtype=rec_t)
recs["id"] = [7, 8, 9]
recs["w"] = [0.5, 1.5, 2.5]
dts = np.array(["2020-01-01", "2021-06-15", "NaT"], dtype="datetime64[D]")
cz = np.array([1 + 2j, 3 - 4j], dtype=np.complex128)
big = np.sin(np.arange(2500, dtype=np.float64))
f32 = np.array([0.1, 2.5, -1e-3], dtype=np.float32)
write_expected(
    {
        "s": "héllo3",
        "lst": [i * 1.5 for i in range(5)],
        "d": {"a": 1, "bb": 2},
        "recs": [[int(r["id"]), float(r["w"])] for r in recs],
        "dts": [str(x) for x in dts],
        "cz": [[c.real, c.imag] for c in cz],
        "big": big.tolist(),
        "f32": [repr(float(str(x))) for x in f32],
    }
)
print(containers(recs, dts, cz, big, f32))
