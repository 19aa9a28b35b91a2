"""Particles in a record array moved in place; the summary comes back as a namedtuple."""

from collections import namedtuple

import numpy as np
from numba import njit

Stats = namedtuple("Stats", ["moved", "energy"])
PARTICLE = np.dtype([("x", np.float64), ("v", np.float64), ("m", np.float64)])


@njit(debug=True)
def advance(ps, dt):
    energy = 0.0
    moved = 0
    for k in range(ps.shape[0]):
        p = ps[k]
        p["x"] = p["x"] + p["v"] * dt
        e = 0.5 * p["m"] * p["v"] * p["v"]
        energy += e  # fid: break
        if p["v"] != 0.0:
            moved += 1
    return Stats(moved, energy)


@njit(debug=True)
def heaviest(ps):
    best = 0
    for k in range(1, ps.shape[0]):
        if ps[k]["m"] > ps[best]["m"]:
            best = k  # fid: break
    return best


def main():
    ps = np.zeros(3, dtype=PARTICLE)
    ps["x"] = [0.0, 1.0, 2.0]
    ps["v"] = [1.0, 0.0, -2.0]
    ps["m"] = [1.0, 3.0, 2.0]
    stats = advance(ps, 0.5)
    top = heaviest(ps)
    print(stats.moved, stats.energy, top)  # fid: break


if __name__ == "__main__":
    main()
