"""debugpy (pydevd) plugin, loaded inside the debuggee: Numba's typed List and Dict in Python frames,
read from their memory, never by calling jitted code.

pydevd's own view calls `repr()` and iterates: each is a call into jitted code (`List.__repr__`,
`_getitem`, `Dict.items`...) that Numba first compiles, 1.5-2.5 s each with debug info under gdb. While
that runs in the stopped thread, pydevd resumes the program's other threads ("Resolving variable
children is taking too long"), the adapter's request times out, and the program runs on under a
debugger that believes it stopped. Here the items are read as the jitted frames read them: NB_List
and NB_Dict (numba/cext/listobject.h, dictobject.h) through the MemInfo the Python object holds.
Item types other than numbers, booleans and strings are shown as unavailable, with the reason.
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any

from _pydevd_bundle.pydevd_extension_api import StrPresentationProvider, TypeResolveProvider

PREVIEW_ITEMS = 10
MAX_ITEMS = 1000
UNAVAILABLE = "<unavailable> (item type not read in Python frames)"


def _memory(address: int, size: int) -> bytes:
    return ctypes.string_at(address, size) if size > 0 else b""


def _pointer_at(address: int) -> int:
    return int.from_bytes(_memory(address, 8), "little")


def _decode(numba_type: Any, data: bytes) -> Any:
    """A Python value from an item's bytes in Numba's data model; UNAVAILABLE when not a plain type."""
    from numba.core import types

    if isinstance(numba_type, types.Boolean):
        return data[0] != 0
    if isinstance(numba_type, types.Integer):
        width, signed = numba_type.bitwidth, numba_type.signed  # type: ignore[attr-defined]
        return int.from_bytes(data[: width // 8], "little", signed=signed)
    if isinstance(numba_type, types.Float):
        return struct.unpack("<d" if numba_type.bitwidth == 64 else "<f", data[: numba_type.bitwidth // 8])[0]
    if isinstance(numba_type, types.Complex):
        fmt, half = ("<dd", 16) if numba_type.bitwidth == 128 else ("<ff", 8)
        real, imag = struct.unpack(fmt, data[:half])
        return complex(real, imag)
    if numba_type == types.unicode_type:
        # Numba's unicode model: data pointer, length, kind (bytes per character), ...
        pointer, length = struct.unpack("<Qq", data[:16])
        kind = int.from_bytes(data[16:20], "little", signed=True)
        if pointer == 0 or length < 0 or kind not in (1, 2, 4):
            return UNAVAILABLE
        encoding = {1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[kind]
        return _memory(pointer, length * kind).decode(encoding, errors="replace")
    return UNAVAILABLE


def _item_size(numba_type: Any) -> int:
    from numba.core import types

    if numba_type == types.unicode_type:
        return 48
    bitwidth = getattr(numba_type, "bitwidth", 0)
    return 1 if isinstance(numba_type, types.Boolean) else bitwidth // 8


def list_items(typed_list: Any, limit: int = MAX_ITEMS) -> tuple[int, list[Any]]:
    """(length, the first `limit` items) of a numba.typed.List."""
    opaque = getattr(typed_list, "_opaque", None)
    if opaque is None:
        return 0, []  # not yet initialised: an empty list that has no type yet
    pointer = _pointer_at(opaque.data)
    # NB_List: size, item_size, allocated, is_mutable, methods (2 pointers), items.
    size, item_size, allocated = struct.unpack("<qqq", _memory(pointer, 24))
    items = _pointer_at(pointer + 48)
    item_type = typed_list._list_type.item_type
    if size < 0 or allocated < size or (size and not items) or item_size != _item_size(item_type):
        raise ValueError("typed list header unreadable")
    shown = min(size, limit)
    block = _memory(items, shown * item_size)
    return size, [_decode(item_type, block[i * item_size : (i + 1) * item_size]) for i in range(shown)]


def dict_items(typed_dict: Any, limit: int = MAX_ITEMS) -> tuple[int, list[tuple[Any, Any]]]:
    """(length, the first `limit` (key, value) pairs) of a numba.typed.Dict, in insertion order."""
    opaque = getattr(typed_dict, "_opaque", None)
    if opaque is None:
        return 0, []
    pointer = _pointer_at(opaque.data)
    # NB_Dict: used, keys -> NB_DictKeys: size, usable, nentries, key_size, val_size, entry_size,
    # entry_offset, methods (5 pointers), indices; the entries follow the indices.
    used, keys = struct.unpack("<qQ", _memory(pointer, 16))
    if not keys:
        raise ValueError("typed dict has no key table")
    _size, _usable, nentries, key_size, val_size, entry_size, entry_offset = struct.unpack(
        "<7q", _memory(keys, 56)
    )
    dict_type = typed_dict._dict_type
    if key_size != _item_size(dict_type.key_type) or val_size != _item_size(dict_type.value_type):
        raise ValueError("typed dict layout does not match its type")
    value_offset = 8 + key_size + (8 - key_size % 8) % 8
    block = _memory(keys + 96 + entry_offset, nentries * entry_size)
    pairs = []
    for index in range(nentries):
        entry = block[index * entry_size : (index + 1) * entry_size]
        if int.from_bytes(entry[:8], "little", signed=True) == -1:
            continue  # a deleted entry
        key = _decode(dict_type.key_type, entry[8 : 8 + key_size])
        value = _decode(dict_type.value_type, entry[value_offset : value_offset + val_size])
        pairs.append((key, value))
        if len(pairs) >= limit:
            break
    return used, pairs


def _is_typed(type_object: type, name: str) -> bool:
    module = getattr(type_object, "__module__", "")
    return (name, module) in (("List", "numba.typed.typedlist"), ("Dict", "numba.typed.typeddict"))


def _show(value: Any) -> str:
    return value if value is UNAVAILABLE else repr(value)


class NumbaTypedStr(StrPresentationProvider):
    def can_provide(self, type_object: type, type_name: str) -> bool:
        return _is_typed(type_object, type_name)

    def get_str(self, val: Any) -> str:
        try:
            if type(val).__name__ == "List":
                size, items = list_items(val, PREVIEW_ITEMS)
                more = ", …" if size > len(items) else ""
                return "[" + ", ".join(_show(item) for item in items) + more + "]"
            size, pairs = dict_items(val, PREVIEW_ITEMS)
            more = ", …" if size > len(pairs) else ""
            return "{" + ", ".join(f"{_show(k)}: {_show(v)}" for k, v in pairs) + more + "}"
        except (ValueError, OSError, AttributeError, struct.error) as exc:
            return f"<unavailable> ({exc})"


class NumbaTypedItems(TypeResolveProvider):
    def can_provide(self, type_object: type, type_name: str) -> bool:
        return _is_typed(type_object, type_name)

    def get_contents_debug_adapter_protocol(self, obj: Any, fmt: Any = None) -> list[tuple[str, Any, str]]:
        try:
            if type(obj).__name__ == "List":
                size, items = list_items(obj)
                out = [(f"[{i}]", item, f"[{i}]") for i, item in enumerate(items)]
            else:
                size, pairs = dict_items(obj)
                out = [(_show(key), value, f"[{key!r}]") for key, value in pairs]
        except (ValueError, OSError, AttributeError, struct.error) as exc:
            return [("<unavailable>", str(exc), "")]
        out.append(("len()", size, ""))
        return out

    def get_dictionary(self, obj: Any) -> dict[str, Any]:
        return {name: value for name, value, _ in self.get_contents_debug_adapter_protocol(obj)}

    def resolve(self, obj: Any, attribute: str) -> Any:
        return self.get_dictionary(obj).get(attribute)
