"""Python stacks of another process's threads, read from its memory with the layout `inproc` measured.

A sample keeps (code key, instruction index) per frame; names and line numbers are decoded once per code
object (cached on its address *and* its field pointers, so a freed and reused address is not mistaken for
the old function).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from pyserver.profile.ptrace import Memory

MAX_DEPTH = 128
# 3.11+ frames of plain calls lie in the thread's data stack, callers below callees: one read of the
# pages below the running frame holds most of the chain (a compile's stack is ~100 frames deep), so the
# thread stays stopped for one system call rather than one per frame.
FRAME_WINDOW_PAGES = 8
# The frame owner that is a C-stack shim (3.12), never a Python function.
_OWNED_BY_CSTACK = 3


@dataclass(frozen=True)
class CodeInfo:
    path: str
    name: str
    first_line: int
    linetable: bytes
    table_format: str = "3.11"  # "3.10": PEP 626's (byte delta, line delta) pairs; else the location table
    # Lines already looked up: a report asks for the same few instructions thousands of times.
    known_lines: dict[int, int | None] = field(default_factory=dict, compare=False, repr=False)

    def line_of(self, instruction: int) -> int | None:
        """The line of the instruction at `instruction` (in code units), from the 3.11+ location table."""
        if instruction not in self.known_lines:
            if self.table_format == "3.10":
                line = line_from_pairs(self.linetable, self.first_line, instruction)
            else:
                line = line_from_table(self.linetable, self.first_line, instruction)
            self.known_lines[instruction] = line
        return self.known_lines[instruction]


# A function's lines lie at or after its first line (a module's first instruction is on line 0).
MAX_LINES_AFTER_FIRST = 1 << 20


def line_from_table(table: bytes, first_line: int, instruction: int) -> int | None:
    """CPython's location table (Objects/locations.md), walked to the entry covering `instruction`.
    None when no entry covers it, the table is cut short, or the line is out of the code's range (both:
    read from a code object being freed)."""
    try:
        line = _walk_table(table, first_line, instruction)
    except IndexError:
        return None
    if line is None or not first_line <= line < first_line + MAX_LINES_AFTER_FIRST:
        return None
    return line


def table_is_sound(table: bytes, first_line: int, code_units: int | None = None) -> bool:
    """Does the whole table walk to its end with every line in the code's range, its entries covering
    exactly the code's `code_units` instructions (when known)? (Varints read inline: this runs for every
    new code object the sampler sees.)"""
    line, position, covered, end = first_line, 0, 0, len(table)
    highest = first_line + MAX_LINES_AFTER_FIRST
    try:
        while position < end:
            header = table[position]
            position += 1
            if not header & 128:
                return False  # every entry starts with its high bit set
            code = (header >> 3) & 15
            covered += (header & 7) + 1
            if code < 10:  # short forms: a column byte, same line
                position += 1
                continue
            if code == 15:  # no location
                continue
            if code < 13:  # one-line forms
                line += code - 10
                position += 2
            else:  # 13: no column, 14: long form; a signed varint line delta (then 3 varints for 14)
                for varint in range(1 if code == 13 else 4):
                    shift = value = 0
                    while True:
                        byte = table[position]
                        position += 1
                        value |= (byte & 63) << shift
                        shift += 6
                        if shift > 30:  # no line or column is that far: memory read after it was freed
                            return False
                        if not byte & 64:
                            break
                    if varint == 0:
                        line += -(value >> 1) if value & 1 else value >> 1
            if line != 0 and not first_line <= line < highest:
                return False
    except IndexError:
        return False
    return position == end and (code_units is None or covered == code_units)


def line_from_pairs(table: bytes, first_line: int, instruction: int) -> int | None:
    """CPython 3.10's co_linetable (Objects/lnotab_notes.txt): (byte delta, signed line delta) pairs,
    a line delta of -128 for "no line". None when no range covers the instruction or the line is out of
    the code's range."""
    line, end, address = first_line, 0, 2 * instruction
    for position in range(0, len(table) - 1, 2):
        start, end = end, end + table[position]
        delta = table[position + 1] - 256 if table[position + 1] > 127 else table[position + 1]
        current = None if delta == -128 else line + delta
        if current is not None:
            line = current
        if start <= address < end:
            if current is None or not first_line <= current < first_line + MAX_LINES_AFTER_FIRST:
                return None
            return current
    return None


def pairs_are_sound(table: bytes, first_line: int, code_bytes: int) -> bool:
    """Is a 3.10 table whole (pairs that cover exactly the code's `code_bytes`, every line in the code's
    range)?"""
    if len(table) % 2:
        return False
    line, covered = first_line, 0
    for position in range(0, len(table), 2):
        covered += table[position]
        delta = table[position + 1] - 256 if table[position + 1] > 127 else table[position + 1]
        if delta != -128:
            line += delta
            if not first_line <= line < first_line + MAX_LINES_AFTER_FIRST:
                return False
    return covered == code_bytes


def _walk_table(table: bytes, first_line: int, instruction: int) -> int | None:
    """The line of the entry covering `instruction` (None: no location). Varints read inline: a
    report looks up every frame's line, and module code has long tables."""
    line, address, position, end = first_line, 0, 0, len(table)
    while position < end:
        header = table[position]
        position += 1
        code = (header >> 3) & 15
        length = (header & 7) + 1
        located = True
        if code < 10:  # short forms: a column byte, same line
            position += 1
        elif code == 15:  # no location
            located = False
        elif code < 13:  # one-line forms
            line += code - 10
            position += 2
        else:  # 13: no column, 14: long form; a signed varint line delta (then 3 varints for 14)
            for varint in range(1 if code == 13 else 4):
                shift = value = 0
                while True:
                    byte = table[position]
                    position += 1
                    value |= (byte & 63) << shift
                    shift += 6
                    if shift > 30:  # no line or column is that far: not a table
                        raise IndexError("varint too long")
                    if not byte & 64:
                        break
                if varint == 0:
                    line += -(value >> 1) if value & 1 else value >> 1
        if address <= instruction < address + length:
            return line if located else None
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
                layout.get("code_bytecode", 0),
            )
            + 8
        )

    def thread_states(self) -> dict[int, int]:
        """native thread id -> PyThreadState address, for every thread the interpreter knows."""
        layout = self.layout
        result: dict[int, int] = {}
        tstate = self.memory.pointer(layout["interp"] + layout["interp_threads_head"])
        while tstate and len(result) < 4096:
            native = self._native_thread_id(tstate)
            if native is None:
                break
            result[native] = tstate
            tstate = self.memory.pointer(tstate + layout["tstate_next"])
        return result

    def _native_thread_id(self, tstate: int) -> int | None:
        layout = self.layout
        if "tstate_native_thread_id" in layout:
            return self.memory.pointer(tstate + layout["tstate_native_thread_id"])
        # 3.10: the kernel's id is in glibc's thread descriptor, which pthread_self() points at.
        pthread = self.memory.pointer(tstate + layout["tstate_thread_id"])
        raw = self.memory.read(pthread + layout["pthread_tid"], 4) if pthread else None
        return None if raw is None else struct.unpack("<i", raw)[0]

    def _frame_object_chain(self, frame: int | None) -> list[tuple[int, int]]:
        """3.10: PyFrameObjects, heap objects linked by f_back; f_lasti counts code units (-1: not
        started). Given as (code, the address its instruction would have at the code object) so that
        `resolve_chain` treats every version alike (3.10's instructions offset is 0)."""
        layout = self.layout
        code_at, previous_at, lasti_at = layout["frame_code"], layout["frame_previous"], layout["frame_lasti"]
        chain: list[tuple[int, int]] = []
        while frame and len(chain) < MAX_DEPTH:
            raw = self.memory.read(frame, lasti_at + 4)
            if raw is None:
                break
            code = struct.unpack_from("<Q", raw, code_at)[0]
            lasti = struct.unpack_from("<i", raw, lasti_at)[0]
            if code:
                chain.append((code, code + 2 * max(lasti, 0)))
            frame = struct.unpack_from("<Q", raw, previous_at)[0]
        return chain

    def frame_chain(self, tstate: int) -> list[tuple[int, int]]:
        """Innermost first: (code object address, last instruction address) per Python frame. One read
        per frame: this runs while the thread is stopped."""
        layout = self.layout
        cframe = self.memory.pointer(tstate + layout["tstate_cframe"])
        if layout["cframe_current_frame"] is None:  # 3.10 and 3.13: the thread state holds the frame
            frame = cframe
        else:
            frame = self.memory.pointer(cframe + layout["cframe_current_frame"]) if cframe else None
        if layout.get("frame_object"):
            return self._frame_object_chain(frame)
        chain: list[tuple[int, int]] = []
        size = layout["frame_owner"] + 1
        code_at, previous_at, instr_at, owner_at = (
            layout["frame_code"],
            layout["frame_previous"],
            layout["frame_prev_instr"],
            layout["frame_owner"],
        )
        window_start, window = 0, b""
        while frame and len(chain) < MAX_DEPTH:
            if not window_start <= frame <= window_start + len(window) - size:
                window_start, window = self.memory.read_below(frame + size, FRAME_WINDOW_PAGES)
            raw = window[frame - window_start : frame - window_start + size] if window else None
            if raw is None or len(raw) != size:
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
        start_offset = self.layout.get("code_instructions", 0)
        for (code, prev_instr), header in zip(chain, headers, strict=True):
            key = self._code_key(code, header)
            if key is not None:
                frames.append((key, max((prev_instr - code - start_offset) // 2, 0)))
        return frames

    def stack(self, tstate: int) -> list[tuple[tuple[int, ...], int]]:
        """Innermost first: (code key, instruction index) per Python frame."""
        chain = self.frame_chain(tstate)
        return self.resolve_chain(chain, self.code_headers(chain))

    def _code_key(self, code: int, header: bytes | None, cache: bool = True) -> tuple[int, ...] | None:
        if header is None:
            return None
        layout = self.layout
        key = (
            code,
            struct.unpack_from("<Q", header, layout["code_filename"])[0],
            struct.unpack_from("<Q", header, layout["code_qualname"])[0],
            struct.unpack_from("<Q", header, layout["code_linetable"])[0],
            struct.unpack_from("<i", header, layout["code_firstlineno"])[0],
            # The instruction count (3.11+), or the bytes object holding the instructions (3.10).
            struct.unpack_from("<q", header, layout.get("code_units", layout.get("code_bytecode", 16)))[0],
        )
        if cache and key not in self.codes:
            self.codes[key] = self._decode(key)
        return key

    def _decode(self, key: tuple[int, ...]) -> CodeInfo | None:
        """Names and line table of a code object seen running, read after its thread went on. Checked
        so that a code object freed meanwhile gives nothing rather than another function's bytes: the
        objects are still of their types, the code still points at them, and the table is sound."""
        code, filename, qualname, linetable, first_line, code_units_or_bytecode = key
        if not (
            self._is_a(code, "type_code")
            and self._is_a(filename, "type_str")
            and self._is_a(qualname, "type_str")
            and self._is_a(linetable, "type_bytes")
        ):
            return None
        path = self._string(filename)
        name = self._string(qualname)
        table = self._bytes(linetable)
        if path is None or name is None or table is None:
            return None
        table_format = self.layout.get("linetable_format", "3.11")
        if table_format == "3.10":
            bytecode = code_units_or_bytecode
            if not self._is_a(bytecode, "type_bytes"):
                return None
            size_raw = self.memory.read(bytecode + self.layout["bytes_size"], 8)
            if size_raw is None or not pairs_are_sound(table, first_line, struct.unpack("<q", size_raw)[0]):
                return None
        else:
            units = code_units_or_bytecode if "code_units" in self.layout else None
            if not table_is_sound(table, first_line, units):
                return None
        if self._code_key(code, self.memory.read(code, self._header_size), cache=False) != key:
            return None  # the code object changed while it was read
        return CodeInfo(path, name, first_line, table, table_format)

    def _is_a(self, address: int, type_key: str) -> bool:
        """Is the object at `address` of the type whose address the layout holds (unknown: yes)?"""
        expected = self.layout.get(type_key)
        if expected is None:
            return True
        raw = self.memory.read(address + self.layout["object_type"], 8)
        return raw is not None and struct.unpack("<Q", raw)[0] == expected

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
