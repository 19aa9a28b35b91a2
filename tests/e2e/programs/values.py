"""Values beyond scalars in a jitted frame: typed List and Dict, a jitclass, a 2-D array, records,
complex and datetime arrays."""

import numpy as np
from numba import njit, types
from numba.experimental import jitclass
from numba.typed import Dict, List


@jitclass([("x", types.float64), ("n", types.int64)])
class Acc:
    def __init__(self, x, n):
        self.x = x
        self.n = n


@njit(debug=True)
def summarise(grid, recs, cz, days):
    lst = List()
    for i in range(4):
        lst.append(i * 1.5)
    d = Dict.empty(types.unicode_type, types.int64)
    d["a"] = 1
    d["bb"] = 2
    acc = Acc(2.5, 3)
    k = len(lst) + len(d) + acc.n  # STOP
    return k, grid[1, 2], recs[1].w, cz[1], days[0]


def main():
    grid = np.arange(12, dtype=np.float64).reshape(3, 4) + 0.25
    recs = np.zeros(3, dtype=np.dtype([("id", np.int32), ("w", np.float64)]))
    recs["id"] = [7, 8, 9]
    recs["w"] = [0.5, 1.5, 2.5]
    cz = np.array([1 + 2j, 3 - 4j])
    days = np.array(["2020-01-01", "2021-06-15", "NaT"], dtype="datetime64[D]")
    print(summarise(grid, recs, cz, days))


if __name__ == "__main__":
    main()
