"""Jitted values decoded from their bytes by Numba's data model: arrays (the array struct), tuples,
strings, and the members of tuples and jitclass fields. Memory behind pointers comes from a
MemoryReader: the debuggee's memory, read through gdb."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any, Protocol

from pyserver.debug.gdb.mi import data as mi_data
from pyserver.debug.gdb.mi_protocol import GdbCommandError, MIExecutor
from pyserver.debug.values.expressions import tuple_variable
from pyserver.debug.values.model import (
    MAX_READ,
    MAX_STRING_CHARS,
    UNAVAILABLE,
    ChildrenHandle,
    JitValueError,
    JitVariable,
)
from pyserver.debug.values.numba_types import NumbaType, decode_scalar, is_scalar
from pyserver.debug.values.report import FrameReport, RawVar


class MemoryReader(Protocol):
    def read_memory(self, address: int, size: int) -> bytes:
        """Bytes of the debuggee's memory; raises JitValueError when unreadable."""
        ...


class InferiorMemory:
    """The debuggee's memory through gdb (`-data-read-memory-bytes`, at most MAX_READ a call)."""

    def __init__(self, gdb: MIExecutor) -> None:
        self.gdb = gdb

    def read_memory(self, address: int, size: int) -> bytes:
        if size <= 0:
            return b""
        if address <= 0:
            raise JitValueError("null pointer")
        out = bytearray()
        offset = 0
        while offset < size:
            chunk = min(MAX_READ, size - offset)
            try:
                got = mi_data.data_read_memory_bytes(self.gdb, address + offset, chunk)
            except GdbCommandError as exc:
                raise JitValueError(
                    f"memory at {address + offset:#x} is not readable: {exc.message}"
                ) from None
            if len(got) < chunk:
                raise JitValueError(f"memory at {address + offset:#x} is only partly readable")
            out += got[:chunk]
            offset += chunk
        return bytes(out)


class ValueDecoder:
    """Values known to be live, decoded by type (no zero rule: the reader judges liveness first)."""

    def __init__(self, memory: MemoryReader, log: Callable[[str], None]) -> None:
        self._memory = memory
        self._log = log

    def decode_array_struct(self, report: FrameReport, raw: RawVar, name: str) -> JitVariable | None:
        numba_type = raw.numba_type
        ndim = numba_type.ndim
        offsets = {}
        for field_name in ("data", "shape", "strides"):
            found = raw.field(field_name)
            if found is None:
                return None
            offsets[field_name] = found[0]
        if not raw.bytes_known(offsets["data"], 8):
            return None
        if not raw.bytes_known(offsets["shape"], 8 * ndim) or not raw.bytes_known(
            offsets["strides"], 8 * ndim
        ):
            return None
        data = int.from_bytes(raw.data[offsets["data"] : offsets["data"] + 8], "little")
        shape = tuple(
            int.from_bytes(
                raw.data[offsets["shape"] + 8 * i : offsets["shape"] + 8 * i + 8], "little", signed=True
            )
            for i in range(ndim)
        )
        strides = tuple(
            int.from_bytes(
                raw.data[offsets["strides"] + 8 * i : offsets["strides"] + 8 * i + 8], "little", signed=True
            )
            for i in range(ndim)
        )
        if data == 0 and not any(shape) and not any(strides):
            return None  # Numba's zeroed dead array
        if any(s < 0 for s in shape) or (data == 0 and math.prod(shape) > 0):
            return None
        return self.array_variable(
            report.thread_id, report.frame_level, name, numba_type, data, shape, strides
        )

    @staticmethod
    def array_variable(
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
    ) -> JitVariable:
        assert numba_type.dtype is not None
        shape_text = "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        handle = ChildrenHandle(
            "array",
            thread_id,
            frame_level,
            data=data,
            shape=shape,
            strides=strides,
            dtype=numba_type.dtype,
            layout=numba_type.layout,
            expression=evaluate_name or name,
        )
        return JitVariable(
            name=name,
            value=display or f"{numba_type.text} shape={shape_text}",
            type=numba_type.text,
            children=handle if shape and shape[0] > 0 else None,
            indexed_count=shape[0] if shape else 0,
            raw=handle,
            evaluate_name=evaluate_name or name,
        )

    def decode_tuple(
        self, report: FrameReport, numba_type: NumbaType, layout: dict[str, Any], data: bytes, name: str
    ) -> JitVariable | None:
        members = numba_type.members
        offsets: list[tuple[int, dict[str, Any]]] = []
        if layout.get("code") == "struct":
            fields = layout.get("fields", [])
            if len(fields) != len(members):
                return None
            offsets = [(int(f["offset"]), f) for f in fields]
        elif layout.get("code") == "array":
            elem = layout.get("elem", {})
            elem_size = int(elem.get("size", 0) or 0)
            if int(layout.get("count", 0) or 0) != len(members):
                return None
            offsets = [(i * elem_size, elem) for i in range(len(members))]
        elif not members:
            offsets = []
        else:
            return None
        children: list[JitVariable] = []
        for index, (member, (offset, member_layout)) in enumerate(zip(members, offsets, strict=False)):
            size = int(member_layout.get("size", 0) or 0)
            chunk = data[offset : offset + size]
            child_name = f"[{index}]"
            expr = f"{name}[{index}]"
            child = self.decode_bytes(report, member, member_layout, chunk, child_name, expr)
            children.append(child)
        return tuple_variable(name, numba_type, report, children)

    def decode_bytes(
        self,
        report: FrameReport,
        numba_type: NumbaType,
        layout: dict[str, Any],
        data: bytes,
        name: str,
        expression: str,
    ) -> JitVariable:
        """A member of a tuple (already known to be live): decode by type, no zero rule."""
        try:
            if is_scalar(numba_type):
                text, value = decode_scalar(numba_type, data)
                return JitVariable(name, text, numba_type.text, raw=value, evaluate_name=expression)
            if numba_type.kind == "tuple":
                decoded = self.decode_tuple(report, numba_type, layout, data, name)
                if decoded is not None:
                    decoded.evaluate_name = expression
                    return decoded
            if numba_type.kind == "array":
                fake = RawVar(name, name, 0, 0, False, numba_type, layout, data, [True] * len(data))
                array = self.decode_array_struct(report, fake, name)
                if array is not None:
                    array.evaluate_name = expression
                    return array
            if numba_type.kind == "unicode":
                text_var = self.decode_unicode(data, layout, name)
                if text_var is not None:
                    return text_var
        except (ValueError, KeyError, struct.error, JitValueError) as exc:
            self._log(f"cannot decode {expression}: {exc}")
        return JitVariable(name, UNAVAILABLE, numba_type.text, available=False, note="type not supported")

    def decode_unicode(self, data: bytes, layout: dict[str, Any], name: str) -> JitVariable | None:
        fields = {f["name"]: int(f["offset"]) for f in layout.get("fields", [])}
        if not {"data", "length", "kind"} <= fields.keys():
            return None
        pointer = int.from_bytes(data[fields["data"] : fields["data"] + 8], "little")
        length = int.from_bytes(data[fields["length"] : fields["length"] + 8], "little", signed=True)
        char_kind = int.from_bytes(data[fields["kind"] : fields["kind"] + 4], "little", signed=True)
        if pointer == 0 or length < 0 or char_kind not in (1, 2, 4):
            return None
        shown = min(length, MAX_STRING_CHARS)
        raw = self._memory.read_memory(pointer, shown * char_kind) if shown else b""
        encoding = {1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[char_kind]
        text = raw.decode(encoding, errors="replace")
        display = repr(text) + ("…" if shown < length else "")
        return JitVariable(name, display, "unicode_type", raw=text, evaluate_name=name)
