"""One splitter for bracketed type text: gdb's demangled names (`Array<double, 1, C, ...>`) and
Numba's type strings (`Tuple(int64, array(float64, 1d, C))`)."""

from __future__ import annotations

OPENING = "<(["
CLOSING = ">)]"


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Parts of `text` split at `sep` outside any bracket, stripped. An empty text gives []; a
    trailing separator gives a last empty part (`a,` -> ["a", ""])."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char in OPENING:
            depth += 1
        elif char in CLOSING:
            depth -= 1
        if char == sep and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    tail = "".join(current).strip()
    if tail or parts:
        parts.append(tail)
    return parts
