"""A typed List[unicode_type], a typed Dict of counts, and a record scalar taken from a record array."""

import numpy as np
from numba import njit, types
from numba.typed import Dict, List


@njit(debug=True)
def count_words(words, parts):
    counts = Dict.empty(types.unicode_type, types.int64)
    longest = ""
    for w in words:  # fid: break
        if len(w) > len(longest):
            longest = w  # fid: break
        counts[w] = counts.get(w, 0) + 1
    p = parts[1]
    weight = p["w"] * p["n"]  # fid: break
    return len(counts), longest, weight


def main():
    words = List(["ab", "cde", "ab", "f", "ghij"])
    parts = np.zeros(3, dtype=np.dtype([("n", np.int64), ("w", np.float64)]))
    parts["n"] = [1, 2, 3]
    parts["w"] = [0.5, 1.5, 2.5]
    result = count_words(words, parts)
    print(result)  # fid: break


if __name__ == "__main__":
    main()
