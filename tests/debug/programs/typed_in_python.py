"""Typed List and Dict held by a Python frame (the fault tests expand them at a Python breakpoint)."""

from numba import njit, types
from numba.typed import Dict, List


@njit(debug=True)
def count(words):
    counts = Dict.empty(types.unicode_type, types.int64)
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return counts


def main():
    words = List(["ab", "cde", "ab", "f"])
    weights = List([1.5, 2.5, -0.25])
    counts = count(words)
    total = len(counts) + len(weights)
    print("total", total)  # BREAK


if __name__ == "__main__":
    main()
