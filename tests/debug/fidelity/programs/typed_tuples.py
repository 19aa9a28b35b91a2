"""Typed List and Dict holding tuples, filled in jitted code; a closure weighs each pair."""

from numba import njit, types
from numba.typed import Dict, List

PAIR = types.UniTuple(types.float64, 2)


@njit(debug=True)
def weigh(pairs, scale):
    def weight(a, b):
        return (a * b) * scale

    best = Dict.empty(types.int64, PAIR)
    total = 0.0
    for a, b in pairs:
        w = weight(a, b)
        total += w  # fid: break
        key = int(a) % 2
        best[key] = (a, w)
    return total, len(best)


def main():
    pairs = List([(1.0, 2.0), (2.0, 0.5), (3.0, 3.0)])
    total, kinds = weigh(pairs, 0.5)
    print(total, kinds)  # fid: break


if __name__ == "__main__":
    main()
