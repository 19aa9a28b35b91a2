"""Python stacks of another process's threads, read from its memory with the layout `inproc` measured.

A sample keeps (code key, instruction index) per frame; names and line numbers are decoded once per code
object (cached on its address *and* its field pointers, so a freed and reused address is not mistaken for
the old function).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from pyserver.profile.ptrace import Memory

MAX_DEPTH = 128
# The frame owner that is a C-stack shim (3.12), never a Python function.
_OWNED_BY_CSTACK = 3


@dataclass(frozen=True)
class CodeInfo:
    path: str
    name: str
    first_line: int
    linetable: bytes

    def line_of(self, instruction: int) -> int | None:
        """The line of the instruction at `instruction` (in code units), from the 3.11+ location table."""
        return line_from_table(self.linetable, self.first_line, instruction)


def _varint(data: bytes, position: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 63) << shift
        shift += 6
        if not byte & 64:
            return value, position


def _signed_varint(data: bytes, position: int) -> tuple[int, int]:
    value, position = _varint(data, position)
    return (-(value >> 1) if value & 1 else value >> 1), position


def line_from_table(table: bytes, first_line: int, instruction: int) -> int | None:
    """CPython's location table (Objects/locations.md), walked to the entry covering `instruction`.
    None when no entry covers it or the table is cut short (read from a code object being freed)."""
    try:
        return _walk_table(table, first_line, instruction)
    except IndexError:
        return None


def _walk_table(table: bytes, first_line: int, instruction: int) -> int | None:
    line = first_line
    address = 0
    position = 0
    while position < len(table):
        header = table[position]
        position += 1
        code = (header >> 3) & 15
        length = (header & 7) + 1
        delta: int | None
        if code == 15:  # no location
            delta = None
        elif code == 14:  # long form
            delta, position = _signed_varint(table, position)
            _, position = _varint(table, position)  # end line delta
            _, position = _varint(table, position)  # column + 1
            _, position = _varint(table, position)  # end column + 1
        elif code == 13:  # no column
            delta, position = _signed_varint(table, position)
        elif code in (10, 11, 12):  # one-line forms
            delta = code - 10
            position += 2
        else:  # short forms
            delta = 0
            position += 1
        if delta is not None:
            line += delta
        if address <= instruction < address + length:
            return line if delta is not None else None
        address += length
    return None


class PythonStacks:
    def __init__(self, memory: Memory, layout: dict[str, Any]) -> None:
        self.memory = memory
        self.layout = layout
        self.codes: dict[tuple[int, ...], CodeInfo | None] = {}
        self._header_size = (
            max(
                layout["code_filename"],
                layout["code_qualname"],
                layout["code_linetable"],
                layout["code_firstlineno"],
            )
            + 8
        )

    def thread_states(self) -> dict[int, int]:
        """native thread id -> PyThreadState address, for every thread the interpreter knows."""
        layout = self.layout
        result: dict[int, int] = {}
        tstate = self.memory.pointer(layout["interp"] + layout["interp_threads_head"])
        while tstate and len(result) < 4096:
            native = self.memory.pointer(tstate + layout["tstate_native_thread_id"])
            if native is None:
                break
            result[native] = tstate
            tstate = self.memory.pointer(tstate + layout["tstate_next"])
        return result

    def frame_chain(self, tstate: int) -> list[tuple[int, int]]:
        """Innermost first: (code object address, last instruction address) per Python frame. One read
        per frame: this runs while the thread is stopped."""
        layout = self.layout
        cframe = self.memory.pointer(tstate + layout["tstate_cframe"])
        frame = self.memory.pointer(cframe + layout["cframe_current_frame"]) if cframe else None
        chain: list[tuple[int, int]] = []
        size = layout["frame_owner"] + 1
        code_at, previous_at, instr_at, owner_at = (
            layout["frame_code"],
            layout["frame_previous"],
            layout["frame_prev_instr"],
            layout["frame_owner"],
        )
        while frame and len(chain) < MAX_DEPTH:
            raw = self.memory.read(frame, size)
            if raw is None:
                break
            code = struct.unpack_from("<Q", raw, code_at)[0]
            if raw[owner_at] != _OWNED_BY_CSTACK and code:
                chain.append((code, struct.unpack_from("<Q", raw, instr_at)[0]))
            frame = struct.unpack_from("<Q", raw, previous_at)[0]
        return chain

    def code_headers(self, chain: list[tuple[int, int]]) -> list[bytes | None]:
        """The header of each frame's code object, all in one system call: this runs while the thread is
        stopped, so that the keys (field pointers) are those of the code that was running."""
        return self.memory.read_many([code for code, _ in chain], self._header_size)

    def resolve_chain(
        self, chain: list[tuple[int, int]], headers: list[bytes | None]
    ) -> list[tuple[tuple[int, ...], int]]:
        """(code key, instruction index) per frame; names and line tables are decoded on first sight,
        after the thread was let go (a code object seen running microseconds ago is still alive)."""
        frames: list[tuple[tuple[int, ...], int]] = []
        start_offset = self.layout["code_instructions"]
        for (code, prev_instr), header in zip(chain, headers, strict=True):
            key = self._code_key(code, header)
            if key is not None:
                frames.append((key, max((prev_instr - code - start_offset) // 2, 0)))
        return frames

    def stack(self, tstate: int) -> list[tuple[tuple[int, ...], int]]:
        """Innermost first: (code key, instruction index) per Python frame."""
        chain = self.frame_chain(tstate)
        return self.resolve_chain(chain, self.code_headers(chain))

    def _code_key(self, code: int, header: bytes | None) -> tuple[int, ...] | None:
        if header is None:
            return None
        layout = self.layout
        key = (
            code,
            struct.unpack_from("<Q", header, layout["code_filename"])[0],
            struct.unpack_from("<Q", header, layout["code_qualname"])[0],
            struct.unpack_from("<Q", header, layout["code_linetable"])[0],
            struct.unpack_from("<i", header, layout["code_firstlineno"])[0],
        )
        if key not in self.codes:
            self.codes[key] = self._decode(key)
        return key

    def _decode(self, key: tuple[int, ...]) -> CodeInfo | None:
        _, filename, qualname, linetable, first_line = key
        path = self._string(filename)
        name = self._string(qualname)
        table = self._bytes(linetable)
        if path is None or name is None or table is None:
            return None
        return CodeInfo(path, name, first_line, table)

    def _string(self, address: int) -> str | None:
        layout = self.layout
        header = self.memory.read(address, layout["unicode_state"] + 4)
        if header is None:
            return None
        length = struct.unpack_from("<q", header, layout["unicode_length"])[0]
        state = struct.unpack_from("<I", header, layout["unicode_state"])[0]
        kind, compact, ascii_only = (state >> 2) & 7, (state >> 5) & 1, (state >> 6) & 1
        if not compact or not 0 <= length < 1 << 16 or kind not in (1, 2, 4):
            return None
        offset = layout["unicode_ascii_data"] if ascii_only else layout["unicode_compact_data"]
        data = self.memory.read(address + offset, length * kind)
        if data is None:
            return None
        return data.decode({1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[kind], errors="replace")

    def _bytes(self, address: int) -> bytes | None:
        layout = self.layout
        size_raw = self.memory.read(address + layout["bytes_size"], 8)
        if size_raw is None:
            return None
        size = struct.unpack("<q", size_raw)[0]
        if not 0 <= size < 1 << 24:
            return None
        return self.memory.read(address + layout["bytes_data"], size) if size else b""
