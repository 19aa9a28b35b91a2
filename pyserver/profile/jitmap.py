"""Native addresses of jitted code to (function, source line), from the JIT objects `inproc` copied.

Each object is a relocatable ELF image whose code section header carries its load address; its symbols
give each function's range and its DWARF line program (present unless the user set NUMBA_DEBUGINFO=0) the lines.
"""

from __future__ import annotations

import bisect
import glob
import io
import json
import os
import re
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_SHF_EXECINSTR = 0x4


@dataclass(frozen=True)
class JitFunction:
    start: int
    end: int
    symbol: str
    name: str  # the Python qualname when known, else the demangled symbol
    path: str | None
    signature: str | None
    wrapper: bool  # Numba's cpython/cfunc wrappers: no user code of their own

    @property
    def key(self) -> tuple[str | None, str, str | None]:
        return (self.path, self.name, self.signature)


@dataclass(frozen=True)
class Compile:
    pid: int
    path: str | None
    name: str | None
    signature: str
    seconds: float
    mangled: str | None
    first_line: int | None
    last_line: int | None
    objects: tuple[str, ...] = ()
    body_lines: frozenset[int] = frozenset()
    id: int = 0  # numbered in its process from 1; 0 when the hook did not number it
    parent: int = 0  # the compile this one ran inside, else 0
    callers: tuple[
        tuple[str, str, int | None], ...
    ] = ()  # (path, name, line) outermost first; outermost compile only


# Numba's names for the loops of ufuncs and gufuncs: the prefix, then the mangled name of the function.
UFUNC_LOOP_PREFIXES = ("__ufunc__.", "__gufunc__.")
_DECODE_ESCAPE = re.compile(r"_([0-9a-f]{2})")


def _unescape(match: re.Match[str]) -> str:
    character = chr(int(match.group(1), 16))
    return match.group(0) if character.isalnum() or character == "_" else character


def demangle(symbol: str) -> str:
    """Numba's Itanium-style names: `_ZN8__main__6loop_aB2v1B54c8...Ex` -> `__main__.loop_a`."""
    match = re.match(r"(?:cfunc\.)?_ZN(.*)", symbol)
    if not match:
        return symbol
    text, position, parts = match.group(1), 0, []
    while position < len(text):
        abi = text[position] == "B"
        if abi:
            position += 1
        digits = re.match(r"\d+", text[position:])
        if not digits:
            break
        length = int(digits.group())
        position += len(digits.group())
        part = text[position : position + length]
        position += length
        if not abi:
            parts.append(_DECODE_ESCAPE.sub(_unescape, part))
    return ".".join(parts) if parts else symbol


def load_compiles(folder: str) -> list[Compile]:
    result = []
    for path in sorted(glob.glob(os.path.join(folder, "compiles-*.jsonl"))):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    raw: dict[str, Any] = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a crash
                result.append(
                    Compile(
                        raw.get("pid", 0),
                        raw.get("path"),
                        raw.get("name"),
                        raw.get("signature", ""),
                        float(raw.get("seconds", 0.0)),
                        raw.get("mangled"),
                        raw.get("first_line"),
                        raw.get("last_line"),
                        tuple(raw.get("objects") or ()),
                        frozenset(raw.get("body_lines") or ()),
                        int(raw.get("id") or 0),
                        int(raw.get("parent") or 0),
                        tuple((str(p), str(n), ln) for p, n, ln in raw.get("callers") or ()),
                    )
                )
    return result


def _without_eh_frame_relocations(data: bytes) -> bytes:
    """pyelftools relocates .eh_frame with the debug sections and knows not R_X86_64_PC64 (type 24),
    which LLVM uses there. The unwind table is not used here: its relocations become R_X86_64_NONE."""
    from pyserver.profile.inproc import elf_sections

    patched = bytearray(data)
    for name, _kind, _address, offset, size, _link in elf_sections(data):
        if name == ".rela.eh_frame":
            for entry in range(offset, offset + size, 24):
                struct.pack_into("<Q", patched, entry + 8, 0)  # r_info: symbol 0, type R_X86_64_NONE
    return bytes(patched)


class JitMap:
    """Every jitted function seen so far; `add_objects` picks up objects written since the last call."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.functions: list[JitFunction] = []
        self._starts: list[int] = []
        self._loaded: set[str] = set()
        self._code: list[tuple[int, bytes]] = []  # (address, bytes) of each code section
        self._code_starts: list[int] = []
        self._line_rows: list[tuple[int, str, int]] = []  # (address, path, line); line 0 = no line
        self._line_addresses: list[int] = []
        self._lines_ready = False
        self._raw_rows: dict[str, list[tuple[int, str, int]]] = {}  # per object, read once
        self._object_code: dict[str, list[tuple[int, int]]] = {}  # per object, its code's [start, end)
        self._object_of: dict[int, str] = {}  # a function's start -> the object it is in
        self.compiles: list[Compile] = []
        self._by_mangled: dict[str, Compile] = {}

    def add_objects(self) -> bool:
        """Load new JIT objects' symbols (cheap: line tables wait for `finish`). True if any was new."""
        new = [p for p in glob.glob(os.path.join(self.folder, "jit-*.o")) if p not in self._loaded]
        if not new:
            return False
        self._refresh_compiles()
        for path in new:
            self._loaded.add(path)
            self._add_symbols(path)
        self.functions.sort(key=lambda f: f.start)
        self._starts = [f.start for f in self.functions]
        self._lines_ready = False
        return True

    def _refresh_compiles(self) -> None:
        self.compiles = load_compiles(self.folder)
        self._by_mangled = {c.mangled: c for c in self.compiles if c.mangled}

    def _add_symbols(self, path: str) -> None:
        from elftools.elf.elffile import ELFFile
        from elftools.elf.sections import SymbolTableSection

        with open(path, "rb") as handle:
            elf = ELFFile(io.BytesIO(handle.read()))
        bases = {
            index: section["sh_addr"]
            for index, section in enumerate(elf.iter_sections())
            if section["sh_flags"] & _SHF_EXECINSTR and section["sh_addr"] and section["sh_size"]
        }
        for index, base in bases.items():
            self._code.append((base, elf.get_section(index).data()))
            self._object_code.setdefault(path, []).append((base, base + elf.get_section(index)["sh_size"]))
        self._code.sort()
        self._code_starts = [start for start, _ in self._code]
        for section in elf.iter_sections():
            if not isinstance(section, SymbolTableSection):
                continue
            for symbol in section.iter_symbols():
                index = symbol["st_shndx"]
                if (
                    symbol["st_info"]["type"] != "STT_FUNC"
                    or not isinstance(index, int)
                    or index not in bases
                ):
                    continue
                start = bases[index] + symbol["st_value"]
                self.functions.append(self._describe(symbol.name, start, start + max(symbol["st_size"], 1)))
                self._object_of[start] = path

    def _describe(self, symbol: str, start: int, end: int) -> JitFunction:
        wrapper = symbol.startswith(("_ZN7cpython", "cfunc.")) or not symbol.startswith("_ZN")
        # A ufunc's or gufunc's loop (@vectorize, @guvectorize, a prange body) is named for the function
        # it loops over, whose code it inlines.
        inner = symbol.split(".", 1)[1] if symbol.startswith(UFUNC_LOOP_PREFIXES) else symbol
        compiled = self._by_mangled.get(inner)
        if compiled is not None and compiled.name:
            return JitFunction(start, end, symbol, compiled.name, compiled.path, compiled.signature, wrapper)
        return JitFunction(start, end, symbol, demangle(inner), None, None, wrapper)

    def code_before(self, address: int, size: int) -> bytes | None:
        """Up to `size` bytes of jitted code just before `address` (None outside known code)."""
        index = bisect.bisect_right(self._code_starts, address - 1) - 1
        if index < 0:
            return None
        start, data = self._code[index]
        offset = address - start
        if not 0 < offset <= len(data):
            return None
        return data[max(offset - size, 0) : offset]

    def function_at(self, address: int) -> JitFunction | None:
        index = bisect.bisect_right(self._starts, address) - 1
        if index >= 0 and address < self.functions[index].end:
            return self.functions[index]
        return None

    # ------------------------------------------------------------------------------------ line tables

    def finish(self, addresses: set[int] | None = None) -> None:
        """Load every object (again, with line tables): called once, after sampling. `addresses`: the
        code addresses that samples hold; only the objects holding one need their line tables (each
        object's rows end its sequences, so rows left out never answer for another object's address)."""
        self.add_objects()
        self._refresh_compiles()
        self.functions = [self._describe(f.symbol, f.start, f.end) for f in self.functions]
        ordered = sorted(addresses) if addresses is not None else None
        rows: list[tuple[int, str, int]] = []
        for path in sorted(self._loaded):
            if ordered is None or self._holds_any(path, ordered):
                rows.extend(self._line_rows_of(path))
        rows.sort()
        self._line_rows = rows
        self._line_addresses = [r[0] for r in rows]
        self._lines_ready = True

    def _holds_any(self, path: str, ordered: list[int]) -> bool:
        """Does the object's code hold one of `ordered` (sorted addresses)?"""
        for start, end in self._object_code.get(path, ()):
            index = bisect.bisect_left(ordered, start)
            if index < len(ordered) and ordered[index] < end:
                return True
        return False

    def prepare_lines(self, stop: threading.Event, sampled: Callable[[], set[int]] | None = None) -> None:
        """Reads the line tables of objects as they are written, until `stop` is set: run in a thread
        while the program runs, so that little is left to do once it ends. `finish` comes after.
        `sampled`: the code addresses sampled so far; then only the objects holding one are read."""
        while not stop.wait(0.05):
            self.add_objects()
            unread = [p for p in sorted(self._loaded) if p not in self._raw_rows]
            if not unread:
                continue
            ordered = sorted(sampled()) if sampled is not None else None
            for path in unread:
                if stop.is_set():
                    return
                if ordered is None or self._holds_any(path, ordered):
                    self._raw_rows[path] = self._read_line_rows(path)

    def _line_rows_of(self, path: str) -> list[tuple[int, str, int]]:
        if path not in self._raw_rows:
            self._raw_rows[path] = self._read_line_rows(path)
        owner = next((c for c in self.compiles if os.path.basename(path) in c.objects), None)
        rows: list[tuple[int, str, int]] = []
        for address, name, line in self._raw_rows[path]:
            if name == "<string>":
                # A prange body: Numba compiles it from generated source but keeps the user's line
                # numbers, those of the function whose compile registered this object.
                if owner is not None and owner.path and (line == 0 or line in owner.body_lines):
                    rows.append((address, owner.path, line))
                else:
                    rows.append((address, "", 0))
            else:
                rows.append((address, name, line))
        return rows

    def _read_line_rows(self, path: str) -> list[tuple[int, str, int]]:
        """(address, absolute path or "<string>" or "" at a sequence's end, line) of each row."""
        from elftools.elf.elffile import ELFFile

        with open(path, "rb") as handle:
            elf = ELFFile(io.BytesIO(_without_eh_frame_relocations(handle.read())))
        if not elf.has_dwarf_info():
            return []
        code_bases = [
            s["sh_addr"]
            for s in elf.iter_sections()
            if s["sh_flags"] & _SHF_EXECINSTR and s["sh_addr"] and s["sh_size"]
        ]
        if len(code_bases) != 1:
            return []  # which section a row belongs to would be a guess: no lines rather than wrong ones
        base = code_bases[0]
        rows: list[tuple[int, str, int]] = []
        dwarf = elf.get_dwarf_info()
        for unit in dwarf.iter_CUs():
            program = dwarf.line_program_for_CU(unit)
            if program is None:
                continue
            files = program["file_entry"]
            directories = list(program["include_directory"])
            if program["version"] < 5:  # directory 0 is the unit's compilation directory
                comp_dir = unit.get_top_DIE().attributes.get("DW_AT_comp_dir")
                directories.insert(0, comp_dir.value if comp_dir is not None else b"")
            version = program["version"]
            for entry in program.get_entries():
                state = entry.state
                if state is None:
                    continue
                if state.end_sequence:
                    rows.append((base + state.address, "", 0))
                    continue
                file_index = state.file if version >= 5 else state.file - 1
                if not 0 <= file_index < len(files):
                    continue
                file_entry = files[file_index]
                name = file_entry.name.decode(errors="replace")
                if name == "<string>":
                    rows.append((base + state.address, name, state.line))
                    continue
                directory_index = file_entry.dir_index
                if not os.path.isabs(name):
                    if not 0 <= directory_index < len(directories) or not directories[directory_index]:
                        continue  # a relative name with no directory: where it is would be a guess
                    name = os.path.join(directories[directory_index].decode(errors="replace"), name)
                rows.append((base + state.address, os.path.abspath(name), state.line))
        return rows

    def line_at(self, address: int) -> tuple[str, int] | None:
        """(absolute path, 1-based line) of a code address; None when no line table covers it."""
        if not self._lines_ready:
            self.finish()
        index = bisect.bisect_right(self._line_addresses, address) - 1
        if index < 0:
            return None
        function = self.function_at(address)
        if function is None:
            return None
        _, path, line = self._line_rows[index]
        if line == 0 and path:
            # LLVM gives line 0 to instructions it cannot pin on one statement; in Numba's code these are
            # mostly the calls and conversions that open the next statement (a call to `sin` sits in a
            # line-0 row just before the row of `s += np.sin(i)`), so the next row with a line names it.
            for later in range(index + 1, min(index + 16, len(self._line_rows))):
                row_address, row_path, row_line = self._line_rows[later]
                if row_address >= function.end or not row_path:
                    break
                if row_line > 0:
                    return row_path, row_line
            return None
        if line <= 0 or not path:
            return None
        return path, line

    def owner(self, function: JitFunction) -> Compile | None:
        """The compile that registered the object holding `function` (a wrapper's, say)."""
        name = os.path.basename(self._object_of.get(function.start, ""))
        return next((c for c in self.compiles if name and name in c.objects), None)

    def enclosing_compile(self, path: str, line: int) -> Compile | None:
        """The compiled Python function whose source holds (path, line): names prange bodies and inlining."""
        best: Compile | None = None
        for compiled in self.compiles:
            if compiled.path != path or compiled.first_line is None or compiled.last_line is None:
                continue
            if compiled.first_line <= line <= compiled.last_line:
                if best is None or (best.first_line or 0) < compiled.first_line:
                    best = compiled
        return best
