"""Containers and arrays of jitted frames, read from memory: typed List and Dict (NB_List, NB_Dict of
numba/cext), jitclass instances, array elements and records."""

from __future__ import annotations

import struct
from typing import Any, Protocol

from pyserver.debug.values.decoding import MemoryReader
from pyserver.debug.values.model import (
    DEFAULT_PAGE,
    MAX_READ,
    PREVIEW_ITEMS,
    UNAVAILABLE,
    ChildrenHandle,
    JitValueError,
    JitVariable,
)
from pyserver.debug.values.numba_types import NumbaType, aligned, decode_scalar, is_scalar, sizeof
from pyserver.debug.values.report import FrameReport


class FramePlace(Protocol):
    """Where a value's children are read from: a jitted frame's report, or a Python frame's object."""

    @property
    def thread_id(self) -> int: ...

    @property
    def frame_level(self) -> int: ...


class ElementDecoder(Protocol):
    """What the containers need decoded that is not a container: strings, arrays and members."""

    def decode_unicode(self, data: bytes, layout: dict[str, Any], name: str) -> JitVariable | None: ...

    def array_variable(
        self,
        thread_id: int,
        frame_level: int,
        name: str,
        numba_type: NumbaType,
        data: int,
        shape: tuple[int, ...],
        strides: tuple[int, ...],
        *,
        evaluate_name: str | None = None,
        display: str | None = None,
    ) -> JitVariable: ...

    def decode_bytes(
        self,
        report: FrameReport,
        numba_type: NumbaType,
        layout: dict[str, Any],
        data: bytes,
        name: str,
        expression: str,
    ) -> JitVariable: ...


class ContainerReader:
    """Typed List and Dict, jitclass instances and the children of arrays, read from the debuggee's
    memory; what is not a container is decoded by `elements`."""

    def __init__(self, memory: MemoryReader, elements: ElementDecoder) -> None:
        self._memory = memory
        self._elements = elements

    def decode_list(self, report: FramePlace, numba_type: NumbaType, pointer: int, name: str) -> JitVariable:
        # NB_List (numba/cext/listobject.h): size, item_size, allocated, is_mutable, methods[2], items.
        header = self._memory.read_memory(pointer, 56)
        size, item_size, allocated = struct.unpack("<qqq", header[:24])
        items = int.from_bytes(header[48:56], "little")
        item_type = numba_type.members[0]
        if size < 0 or allocated < size or (size and items == 0):
            raise JitValueError("typed list header unreadable")
        handle = ChildrenHandle(
            "list",
            report.thread_id,
            report.frame_level,
            data=items,
            count=size,
            item_size=item_size,
            dtype=item_type,
            expression=name,
        )
        readable = is_scalar(item_type) or item_type.kind == "unicode"
        preview = self.list_children(handle, 0, min(size, PREVIEW_ITEMS)) if readable else []
        text = (
            "["
            + ", ".join(c.value for c in preview)
            + (", …" if size > len(preview) and preview else "")
            + "]"
        )
        if not preview and size:
            text = f"{numba_type.text} len={size}"
        return JitVariable(
            name,
            text,
            numba_type.text,
            children=handle if size else None,
            indexed_count=size,
            raw=handle,
            evaluate_name=name,
        )

    def decode_dict(self, report: FramePlace, numba_type: NumbaType, pointer: int, name: str) -> JitVariable:
        # NB_Dict: used, keys -> NB_DictKeys: size, usable, nentries, key_size, val_size, entry_size,
        # entry_offset, methods[5], indices[] (numba/cext/dictobject.h); entries after the indices.
        used, keys = struct.unpack("<qQ", self._memory.read_memory(pointer, 16))
        if keys == 0:
            raise JitValueError("typed dict has no key table")
        header = self._memory.read_memory(keys, 56)
        _size, _usable, nentries, key_size, val_size, entry_size, entry_offset = struct.unpack("<7q", header)
        key_type, value_type = numba_type.members
        if key_size != sizeof(key_type) or val_size != sizeof(value_type) or nentries < 0:
            raise JitValueError("typed dict layout does not match its type")
        handle = ChildrenHandle(
            "dict",
            report.thread_id,
            report.frame_level,
            data=keys + 96 + entry_offset,
            count=nentries,
            item_size=entry_size,
            key_type=key_type,
            dtype=value_type,
            key_offset=8,
            value_offset=8 + aligned(key_size),
            expression=name,
        )
        entries = self.dict_children(handle, 0, None)
        handle.kind = "static"
        handle.items = entries
        preview = ", ".join(f"{c.name}: {c.value}" for c in entries[:PREVIEW_ITEMS])
        text = "{" + preview + (", …" if len(entries) > PREVIEW_ITEMS else "") + "}"
        return JitVariable(
            name,
            text,
            numba_type.text,
            children=handle if entries else None,
            named_count=len(entries),
            raw=entries,
            evaluate_name=name,
            note=f"{used} items",
        )

    def decode_jitclass(
        self, report: FrameReport, numba_type: NumbaType, layout: dict[str, Any], pointer: int, name: str
    ) -> JitVariable:
        data_layout: dict[str, Any] = {}
        for item in layout.get("fields", []):
            if item.get("name") == "data":
                data_layout = item.get("target", {})
        fields = data_layout.get("fields", [])
        size = int(data_layout.get("size", 0) or 0)
        if not fields or size <= 0:
            raise JitValueError("jitclass layout unknown")
        memory = self._memory.read_memory(pointer, size)
        by_name = {str(f.get("name", "")): f for f in fields}
        children: list[JitVariable] = []
        for field_name, field_type in zip(numba_type.names, numba_type.members, strict=False):
            item = by_name.get(f"m_{field_name}") or by_name.get(field_name)
            if item is None:
                children.append(JitVariable(field_name, UNAVAILABLE, field_type.text, available=False))
                continue
            offset = int(item["offset"])
            chunk = memory[offset : offset + int(item.get("size", 0) or 0)]
            child = self._elements.decode_bytes(
                report, field_type, item, chunk, field_name, f"{name}.{field_name}"
            )
            children.append(child)
        text = (
            f"{numba_type.class_name.split('.')[-1]}("
            + ", ".join(f"{c.name}={c.value}" for c in children)
            + ")"
        )
        handle = ChildrenHandle("static", report.thread_id, report.frame_level, items=children)
        return JitVariable(
            name,
            text,
            numba_type.text,
            children=handle,
            named_count=len(children),
            raw={c.name: c for c in children},
            evaluate_name=name,
        )

    # --- children ------------------------------------------------------------------------------------
    def array_children(self, handle: ChildrenHandle, start: int, count: int | None) -> list[JitVariable]:
        assert handle.dtype is not None
        length = handle.shape[0] if handle.shape else 0
        start = max(0, start)
        end = length if count is None else min(length, start + max(0, count))
        if count is None and end - start > DEFAULT_PAGE:
            end = start + DEFAULT_PAGE
        if start >= end:
            return []
        stride0 = handle.strides[0]
        base = handle.expression
        if len(handle.shape) > 1:
            row_layout = "C" if handle.layout == "C" else "A"
            row_ndim = len(handle.shape) - 1
            row_type = NumbaType(
                "array",
                f"array({handle.dtype.text}, {row_ndim}d, {row_layout})",
                dtype=handle.dtype,
                ndim=row_ndim,
                layout=row_layout,
            )
            rows = []
            for index in range(start, end):
                row = self._elements.array_variable(
                    handle.thread_id,
                    handle.frame_level,
                    f"[{index}]",
                    row_type,
                    handle.data + index * stride0,
                    handle.shape[1:],
                    handle.strides[1:],
                    evaluate_name=f"{base}[{index}]",
                )
                if row_ndim == 1 and is_scalar(handle.dtype) and handle.shape[1] <= PREVIEW_ITEMS:
                    items = self.array_children(row.raw, 0, None)
                    row.value = "[" + ", ".join(i.value for i in items) + "]"
                rows.append(row)
            return rows
        dtype = handle.dtype
        itemsize = sizeof(dtype)
        if itemsize <= 0:
            raise JitValueError(f"cannot read elements of dtype {dtype.text}")
        addresses = [handle.data + index * stride0 for index in range(start, end)]
        low = min(addresses)
        high = max(addresses) + itemsize
        if high - low <= MAX_READ:
            block = self._memory.read_memory(low, high - low)

            def element(address: int) -> bytes:
                return block[address - low : address - low + itemsize]

        else:

            def element(address: int) -> bytes:
                return self._memory.read_memory(address, itemsize)

        out: list[JitVariable] = []
        for index, address in zip(range(start, end), addresses, strict=False):
            out.append(
                self.element_variable(
                    handle, dtype, element(address), f"[{index}]", f"{base}[{index}]", address
                )
            )
        return out

    def element_variable(
        self, handle: ChildrenHandle, dtype: NumbaType, data: bytes, name: str, expression: str, address: int
    ) -> JitVariable:
        if is_scalar(dtype):
            text, value = decode_scalar(dtype, data)
            return JitVariable(name, text, dtype.text, raw=value, evaluate_name=expression)
        if dtype.kind == "record":
            children = []
            for field_name, field_type, offset in zip(
                dtype.names, dtype.members, dtype.offsets, strict=False
            ):
                if is_scalar(field_type):
                    text, value = decode_scalar(field_type, data[offset : offset + field_type.size])
                    children.append(
                        JitVariable(
                            field_name,
                            text,
                            field_type.text,
                            raw=value,
                            evaluate_name=f"{expression}.{field_name}",
                        )
                    )
                else:
                    children.append(
                        JitVariable(
                            field_name,
                            UNAVAILABLE,
                            field_type.text,
                            available=False,
                            note="type not supported",
                        )
                    )
            text = "(" + ", ".join(c.value for c in children) + ")"
            items_handle = ChildrenHandle("static", handle.thread_id, handle.frame_level, items=children)
            return JitVariable(
                name,
                text,
                dtype.text,
                children=items_handle,
                named_count=len(children),
                raw={c.name: c for c in children},
                evaluate_name=expression,
            )
        return JitVariable(name, UNAVAILABLE, dtype.text, available=False, note="dtype not supported")

    def list_children(self, handle: ChildrenHandle, start: int, count: int | None) -> list[JitVariable]:
        assert handle.dtype is not None
        end = handle.count if count is None else min(handle.count, start + max(0, count))
        if count is None and end - start > DEFAULT_PAGE:
            end = start + DEFAULT_PAGE
        if start >= end:
            return []
        dtype = handle.dtype
        if (not is_scalar(dtype) and dtype.kind != "unicode") or handle.item_size != sizeof(dtype):
            return [
                JitVariable(
                    f"[{i}]", UNAVAILABLE, dtype.text, available=False, note="item type not supported"
                )
                for i in range(start, end)
            ]
        block = self._memory.read_memory(
            handle.data + start * handle.item_size, (end - start) * handle.item_size
        )
        out = []
        for index in range(start, end):
            offset = (index - start) * handle.item_size
            if not is_scalar(dtype):
                item = self._container_item(
                    handle, dtype, block[offset : offset + handle.item_size], f"[{index}]"
                )
                item.name, item.evaluate_name = f"[{index}]", f"{handle.expression}[{index}]"
                out.append(item)
                continue
            text, value = decode_scalar(dtype, block[offset : offset + handle.item_size])
            out.append(
                JitVariable(
                    f"[{index}]", text, dtype.text, raw=value, evaluate_name=f"{handle.expression}[{index}]"
                )
            )
        return out

    def dict_children(self, handle: ChildrenHandle, start: int, count: int | None) -> list[JitVariable]:
        assert handle.dtype is not None and handle.key_type is not None
        if handle.count <= 0:
            return []
        total = min(handle.count, 100_000)
        block = self._memory.read_memory(handle.data, total * handle.item_size)
        out: list[JitVariable] = []
        for index in range(total):
            entry = block[index * handle.item_size : (index + 1) * handle.item_size]
            if int.from_bytes(entry[:8], "little", signed=True) == -1:
                continue  # DKIX_EMPTY: a deleted entry
            key_bytes = entry[handle.key_offset : handle.key_offset + sizeof(handle.key_type)]
            value_bytes = entry[handle.value_offset : handle.value_offset + sizeof(handle.dtype)]
            key = self._container_item(handle, handle.key_type, key_bytes, "key")
            value = self._container_item(handle, handle.dtype, value_bytes, "value")
            label = key.value if key.available else f"<key {index}>"
            value.name = label
            value.evaluate_name = f"{handle.expression}[{label}]" if isinstance(key.raw, (int, str)) else None
            out.append(value)
        end = len(out) if count is None else start + count
        return out[start:end]

    def _container_item(
        self, handle: ChildrenHandle, numba_type: NumbaType, data: bytes, name: str
    ) -> JitVariable:
        if is_scalar(numba_type):
            text, value = decode_scalar(numba_type, data)
            return JitVariable(name, text, numba_type.text, raw=value)
        if numba_type.kind == "unicode":
            layout = {
                "fields": [
                    {"name": "data", "offset": "0"},
                    {"name": "length", "offset": "8"},
                    {"name": "kind", "offset": "16"},
                ]
            }
            decoded = self._elements.decode_unicode(data, layout, name)
            if decoded is not None:
                return decoded
        return JitVariable(name, UNAVAILABLE, numba_type.text, available=False, note="type not supported")
