"""Numba's type text (as recorded or inferred) in the spelling Numba's signature parser reads back
exactly: `array(float64, 1d, C)` -> `float64[::1]`, and whole signatures split and respelled."""

from __future__ import annotations

import re


def split_signature(signature: str) -> list[str] | None:
    """ "(float64[:], UniTuple(int64 x 2))" -> ["float64[:]", "UniTuple(int64 x 2)"]; None if unparsable."""
    text = signature.strip()
    if "->" in text:
        text = text.split("->", 1)[0].strip()
    if not (text.startswith("(") and text.endswith(")")):
        return None
    inner = text[1:-1]
    parts, depth, current = [], 0, ""
    for char in inner:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return None
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts if depth == 0 else None


def parser_spelling(signature: str) -> str | None:
    """A recorded signature in the spelling Numba's signature parser reads back exactly."""
    parts = split_signature(signature)
    if parts is None:
        return None
    converted = []
    for part in parts:
        spelled = signature_type(part)
        if spelled is None and re.fullmatch(r"[\w\[\]:, ]+", part) and not part.startswith("array"):
            spelled = part  # already in the parser's spelling, e.g. "float64[:]"
        if spelled is None:
            return None
        converted.append(spelled)
    return "(" + ", ".join(converted) + ")"


_SCALAR_NAMES = {
    *(f"int{n}" for n in (8, 16, 32, 64)),
    *(f"uint{n}" for n in (8, 16, 32, 64)),
    "float32",
    "float64",
    "complex64",
    "complex128",
    "intp",
    "uintp",
    "unicode_type",
    "none",
}
_ARRAY = re.compile(r"^array\((?P<dtype>\w+), (?P<ndim>\d+)d, (?P<layout>[CFA])\)$")
_UNITUPLE = re.compile(r"^UniTuple\((?P<item>.+) x (?P<count>\d+)\)$")


def signature_type(text: str) -> str | None:
    """`array(float64, 1d, C)` -> `float64[::1]`, `bool` -> `boolean`, ...; None when the type has no
    exact spelling in a signature string (readonly arrays, records, ...): never write a wrong type."""
    text = text.strip()
    if text in _SCALAR_NAMES:
        return text
    if text in ("bool", "boolean"):
        return "boolean"
    array = _ARRAY.match(text)
    if array is not None:
        dtype = signature_type(array.group("dtype"))
        ndim = int(array.group("ndim"))
        if dtype is None or ndim < 1 or dtype in ("unicode_type", "none"):
            return None
        dims = [":"] * ndim
        if array.group("layout") == "C":
            dims[-1] = "::1"
        elif array.group("layout") == "F":
            dims[0] = "::1"
        return f"{dtype}[{', '.join(dims)}]"
    unituple = _UNITUPLE.match(text)
    if unituple is not None:
        item = signature_type(unituple.group("item"))
        return f"UniTuple({item}, {unituple.group('count')})" if item else None
    return None


def signature_text(args: list[str]) -> str | None:
    converted = [signature_type(arg) for arg in args]
    if any(item is None for item in converted):
        return None
    return "(" + ", ".join(item for item in converted if item is not None) + ")"
