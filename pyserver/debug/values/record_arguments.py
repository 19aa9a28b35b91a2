"""The record type of a jitted function's record argument, from what the debuggee exports while Numba
compiles (debuggee/inside/boot.py `_patch_record_arguments`, lines of the live-versions file).

Numba's DWARF types a record argument only as a pointer to N bytes. gdb's frame name (the demangled
symbol) types it `Record<CODE>`, where CODE is the record type's `_code`: a number Numba's type
interning hands out in order within one process (numba/core/types/abstract.py `_autoincr`), not a
field count or a size. So CODE names one record type only in the process that compiled the function:
a function loaded from Numba's cache carries the numbers of the process that compiled it, and a forked
child hands out numbers of its own. The debuggee writes, for each compiled user function with a record
argument, its pid, file, name, abi tags (the unique id `v2` and the flags, as gdb prints them), its
parameters in the symbol's order, and for each record parameter the code and the type as Numba writes
it (`Record(id[type=int64;offset=0],...;24;False)`, fields, offsets, size and aligned flag). A type is
given only when the frame's function is one of those compiles (same pid, file, name and tags), the
parameter's position in the frame name holds `Record<CODE>` with the exported code, the code has one
layout in that process and its size is the pointer's N.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from pyserver.debug.brackets import split_top_level
from pyserver.debug.values.numba_types import NumbaType, parse_numba_type

_ABI_TAGS = re.compile(r"\[abi:([^\]]*)\]")
_RECORD_ARG = re.compile(r"Record<(\d+)>")


@dataclass(frozen=True)
class _Compile:
    params: tuple[str, ...]  # the function's parameters, in the symbol's order
    records: tuple[tuple[str, int, str], ...]  # (parameter, code, record type) of its record parameters


def _frame_signature(gdb_func: str) -> tuple[str, tuple[str, ...], list[str]] | None:
    """`__main__::kinetic[abi:v2][abi:c8t…](Record<383>, double)` -> ("kinetic", ("v2", "c8t…"),
    ["Record<383>", "double"]); None when the name has no argument list."""
    paren = gdb_func.find("(")
    if paren <= 0 or not gdb_func.endswith(")"):
        return None
    head = gdb_func[:paren]
    args_text = gdb_func[paren + 1 : -1].strip()
    if head.startswith("cpython::"):
        return None
    name = _ABI_TAGS.sub("", head).split("::")[-1]
    args = [] if args_text in ("", "void") else [a.strip() for a in split_top_level(args_text)]
    return name, tuple(_ABI_TAGS.findall(head)), args


class RecordArguments:
    """The exported compiles, merged as they are read (LiveVersions feeds the lines and locks)."""

    def __init__(self) -> None:
        # (pid, real file, name, abi tags) -> the compiles written for it (one, unless it was compiled
        # twice under one symbol name, which makes it unusable)
        self._compiles: dict[tuple[int, str, str, tuple[str, ...]], set[_Compile]] = {}
        # (pid, code) -> the record types written for it (one; two would be a contradiction)
        self._layouts: dict[tuple[int, int], set[str]] = {}

    def merge(self, entry: dict) -> None:  # type: ignore[type-arg]
        pid = int(entry["pid"])
        key = (
            pid,
            os.path.realpath(str(entry["file"])),
            str(entry["name"]),
            tuple(map(str, entry["abi_tags"])),
        )
        records = tuple(
            (str(param), int(code_type[0]), str(code_type[1]))
            for param, code_type in entry["records"].items()
        )
        self._compiles.setdefault(key, set()).add(_Compile(tuple(map(str, entry["params"])), records))
        for _param, code, type_text in records:
            self._layouts.setdefault((pid, code), set()).add(type_text)

    def lookup(
        self, pid: int, file: str, gdb_func: str, param: str, size: int
    ) -> tuple[NumbaType | None, str]:
        """(record type, "") for parameter `param` of the frame's function, a pointer to `size` bytes
        in DWARF; (None, why not) when any link is missing or uncertain."""
        signature = _frame_signature(gdb_func)
        if signature is None:
            return None, "the frame's name has no argument types"
        name, tags, frame_args = signature
        compiles = self._compiles.get((pid, os.path.realpath(file), name, tags))
        if not compiles:
            return None, (
                "this compile of the function was not seen by the adapter's compile hook in this "
                "process (e.g. loaded from Numba's cache, whose record numbers are another process's)"
            )
        if len(compiles) > 1:
            return None, "several compiles exported under this function's name and tags disagree"
        compiled = next(iter(compiles))
        if len(compiled.params) != len(frame_args) or param not in compiled.params:
            return None, "the frame's argument list does not match the compiled parameters"
        exported = [code for p, code, _type_text in compiled.records if p == param]
        if len(exported) != 1:
            return None, "the compiled signature does not type this parameter as a record"
        code = exported[0]
        in_frame = _RECORD_ARG.fullmatch(frame_args[compiled.params.index(param)])
        if in_frame is None or int(in_frame.group(1)) != code:
            return None, "the frame's name does not type this parameter as the exported record"
        layouts = self._layouts.get((pid, code), set())
        if len(layouts) != 1:
            return None, f"record number {code} was exported with {len(layouts)} different layouts"
        record = parse_numba_type(next(iter(layouts)))
        if record.kind != "record" or record.size != size:
            return None, f"the exported record type is not {size} bytes"
        return record, ""
