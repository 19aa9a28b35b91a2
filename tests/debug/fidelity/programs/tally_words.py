"""Word counting over a typed List of str into a typed Dict, with a skip counter, a while loop over a
histogram, and nested jitted calls stepped into and out of."""

from numba import njit, types
from numba.typed import Dict, List


@njit(debug=True)
def is_stop_word(word):
    size = len(word)
    return size <= 2


@njit(debug=True)
def normalize(word):
    if is_stop_word(word):
        return ""
    return word.lower()


@njit(debug=True)
def tally(words):
    counts = Dict.empty(types.unicode_type, types.int64)
    total = 0
    skipped = 0
    for w in words:
        key = normalize(w)  # fid: next 6, in 5
        if key == "":
            skipped += 1
            continue
        counts[key] = counts.get(key, 0) + 1
        total += 1  # fid: break
    longest = 0
    k = 0
    while k < len(words):
        if len(words[k]) > longest:
            longest = len(words[k])  # fid: break
        k += 1
    return total, skipped, longest, len(counts)


def main():
    words = List(["The", "cat", "of", "a", "Cat", "sat"])
    result = tally(words)
    print(result)  # fid: break


if __name__ == "__main__":
    main()
