"""Numba type strings as Numba writes them into DWARF (`array(float64, 1d, C)`, `Record(...)`,
`ListType[unicode_type]`), parsed; and scalars decoded from their bytes as Python prints them."""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from typing import Any

from pyserver.debug.brackets import split_top_level

# ----------------------------------------------------------------------------------------------------
# Numba type strings
# ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NumbaType:
    """A parsed Numba type name. kind: int, uint, float, bool, complex, datetime, timedelta, none,
    array, tuple, record, unicode, list, dict, jitclass, unknown."""

    kind: str
    text: str
    size: int = 0  # scalars: bytes
    dtype: NumbaType | None = None  # array
    ndim: int = 0
    layout: str = "A"
    members: tuple[NumbaType, ...] = ()  # tuple members / list item / dict key+value
    names: tuple[str, ...] = ()  # record / jitclass field names
    offsets: tuple[int, ...] = ()  # record field offsets
    unit: str = ""  # datetime/timedelta unit
    class_name: str = ""  # jitclass / named tuple name


_LLVM_SUFFIX = re.compile(r"^(.*?) \((\{.*\}|\[.*\]|[a-z][a-z0-9]*\**)\)$", re.S)
_SCALARS = {
    **{f"int{b}": ("int", b // 8) for b in (8, 16, 32, 64)},
    **{f"uint{b}": ("uint", b // 8) for b in (8, 16, 32, 64)},
    "intp": ("int", 8),
    "uintp": ("uint", 8),
    "float32": ("float", 4),
    "float64": ("float", 8),
    "float16": ("float", 2),
    "bool": ("bool", 1),
    "boolean": ("bool", 1),
    "complex64": ("complex", 8),
    "complex128": ("complex", 16),
    "none": ("none", 0),
}


def strip_llvm_suffix(dwarf_name: str) -> str:
    """`array(float64, 1d, C) ({i8*, ...})` -> `array(float64, 1d, C)`."""
    match = _LLVM_SUFFIX.match(dwarf_name.strip())
    return match.group(1) if match else dwarf_name.strip()


def _split_args(text: str) -> list[str]:
    """Top-level comma parts of a Numba type's argument text; an empty last part is dropped."""
    parts = split_top_level(text)
    return parts[:-1] if parts and not parts[-1] else parts


def parse_numba_type(text: str) -> NumbaType:
    """Parse the Numba type names that appear in DWARF. Anything else is kind "unknown"."""
    text = strip_llvm_suffix(text)
    if text in _SCALARS:
        kind, size = _SCALARS[text]
        return NumbaType(kind, text, size=size)
    match = re.fullmatch(r"(datetime64|timedelta64)(?:\[(\w*)\])?", text)
    if match:
        return NumbaType(match.group(1)[:-2], text, size=8, unit=match.group(2) or "")
    match = re.fullmatch(r"Literal\[(int|bool)\]\((.*)\)", text, re.S)
    if match:
        # A variable typed as a literal is stored as the plain type (int64 / bool).
        return NumbaType("int", text, size=8) if match.group(1) == "int" else NumbaType("bool", text, size=1)
    if text == "unicode_type":
        return NumbaType("unicode", text, size=48)
    match = re.fullmatch(r"(?:readonly |unaligned )*array\((.*), (\d+)d, ([CFA])\)", text, re.S)
    if match:
        dtype = parse_numba_type(match.group(1))
        return NumbaType("array", text, dtype=dtype, ndim=int(match.group(2)), layout=match.group(3))
    match = re.fullmatch(r"Record\((.*);(\d+);(True|False)\)", text, re.S)
    if match:
        names: list[str] = []
        members: list[NumbaType] = []
        offsets: list[int] = []
        for part in _split_args(match.group(1)):
            field_match = re.fullmatch(r"(\w+)\[type=(.*);offset=(\d+)\]", part, re.S)
            if not field_match:
                return NumbaType("unknown", text)
            names.append(field_match.group(1))
            members.append(parse_numba_type(field_match.group(2)))
            offsets.append(int(field_match.group(3)))
        return NumbaType(
            "record",
            text,
            size=int(match.group(2)),
            members=tuple(members),
            names=tuple(names),
            offsets=tuple(offsets),
        )
    match = re.fullmatch(r"ListType\[(.*)\]", text, re.S)
    if match:
        return NumbaType("list", text, members=(parse_numba_type(match.group(1)),))
    match = re.fullmatch(r"DictType\[(.*)\](?:<iv=.*>)?", text, re.S)
    if match:
        parts = _split_args(match.group(1))
        if len(parts) == 2:
            return NumbaType("dict", text, members=tuple(parse_numba_type(p) for p in parts))
        return NumbaType("unknown", text)
    match = re.fullmatch(r"instance\.jitclass\.([\w.]+)#[0-9a-fA-F]+<(.*)>", text, re.S)
    if match:
        names = []
        members = []
        for part in _split_args(match.group(2)):
            name, _, type_text = part.partition(":")
            names.append(name.strip())
            members.append(parse_numba_type(type_text))
        return NumbaType(
            "jitclass", text, members=tuple(members), names=tuple(names), class_name=match.group(1)
        )
    match = re.fullmatch(r"(\w+)\((.*)\)", text, re.S)
    if match and match.group(1) not in ("array", "Record", "Literal", "Optional"):
        head, body = match.group(1), match.group(2)
        uni = re.fullmatch(r"(.*) x (\d+)", body, re.S)
        if uni and "," not in _split_args(body)[0] and len(_split_args(body)) == 1:
            member = parse_numba_type(uni.group(1))
            members_t: tuple[NumbaType, ...] = (member,) * int(uni.group(2))
        else:
            members_t = tuple(parse_numba_type(p) for p in _split_args(body))
        class_name = "" if head in ("Tuple", "UniTuple") else head
        return NumbaType("tuple", text, members=members_t, class_name=class_name)
    return NumbaType("unknown", text)


# ----------------------------------------------------------------------------------------------------
# Scalar decoding and display
# ----------------------------------------------------------------------------------------------------


def format_float(value: float, size: int = 8) -> str:
    """Python's repr; for float32/float16 NumPy's shortest repr of that width (0.1, not 0.10000000149)."""
    if size in (2, 4) and math.isfinite(value):
        import numpy as np

        return repr(float(str(np.float32(value) if size == 4 else np.float16(value))))
    return repr(float(value))


def format_complex(value: complex, size: int = 16) -> str:
    if size == 8:
        import numpy as np

        return repr(complex(float(str(np.float32(value.real))), float(str(np.float32(value.imag)))))
    return repr(complex(value))


def _decode_datetime(kind: str, unit: str, raw: int) -> str:
    import numpy as np

    if raw == -(1 << 63):
        return "NaT"
    try:
        make: Any = np.datetime64 if kind == "datetime" else np.timedelta64
        return str(make(raw, unit)) if unit else str(raw)
    except (ValueError, OverflowError):
        return str(raw)


def decode_scalar(numba_type: NumbaType, data: bytes) -> tuple[str, Any]:
    """(display text, Python value) of one scalar of the given type; raises ValueError if the bytes
    do not fit."""
    kind = numba_type.kind
    size = numba_type.size
    if len(data) < size:
        raise ValueError("short read")
    chunk = data[:size]
    if kind in ("int", "uint"):
        number = int.from_bytes(chunk, "little", signed=kind == "int")
        return str(number), number
    if kind == "float":
        fmt = {8: "<d", 4: "<f", 2: "<e"}[size]
        number_f = struct.unpack(fmt, chunk)[0]
        return format_float(number_f, size), number_f
    if kind == "bool":
        flag = chunk != b"\0" * size
        return ("True" if flag else "False"), flag
    if kind == "complex":
        fmt = "<dd" if size == 16 else "<ff"
        real, imag = struct.unpack(fmt, chunk)
        number_c = complex(real, imag)
        return format_complex(number_c, size), number_c
    if kind in ("datetime", "timedelta"):
        number = int.from_bytes(chunk, "little", signed=True)
        return _decode_datetime(kind, numba_type.unit, number), number
    if kind == "none":
        return "None", None
    raise ValueError(f"not a scalar: {numba_type.text}")


def is_scalar(numba_type: NumbaType) -> bool:
    return numba_type.kind in ("int", "uint", "float", "bool", "complex", "datetime", "timedelta", "none")


def aligned(size: int) -> int:
    return size + (8 - size % 8) % 8


def sizeof(numba_type: NumbaType) -> int:
    """Bytes of a value of this type as stored in arrays and containers (Numba's data model)."""
    if is_scalar(numba_type) or numba_type.kind in ("record", "unicode"):
        return numba_type.size
    return 0
