"""Strings and tuples passed from Python, read after their last use (gdb then reads zeros)."""

import sys
from pathlib import Path

from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import write_expected


@njit(debug=True)
def describe(label, pair, word, small):
    size = len(label) + len(word)
    first = pair[0] + small
    ratio = first / size
    return ratio * 2.0  # STOP


label = "héllo wörld"
pair = (7, 0.25)
word = 'say "hi"\n'
write_expected({"label": repr(label), "pair": repr(pair), "word": repr(word)})
print(describe(label, pair, word, 3))
