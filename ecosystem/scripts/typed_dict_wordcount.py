from numba import njit, types
from numba.typed import Dict


@njit
def count_words(words):
    counts = Dict.empty(key_type=types.unicode_type, value_type=types.int64)
    for w in words:
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    return counts


@njit
def most_common(counts):
    best = ""
    best_n = -1
    for k, v in counts.items():
        if v > best_n:
            best, best_n = k, v
    return best, best_n


text = "the quick brown fox jumps over the lazy dog the end"
from numba.typed import List

words = List(text.split())
c = count_words(words)
print(most_common(c))
