"""Which SSA version holds each Python variable where a line of a jitted function starts, from Numba's
own IR: the debuggee writes the map while compiling (pyserver/debug/debuggee/inside/boot.py,
`_export_live_versions`), one JSON line per function, to the file named by NUMBA_LENS_LIVE_VERSIONS.

The value reader uses it to pick the live version among several (`total`, `total$1`, `total$4`) and to
trust a 0 that Numba did not write as its "freed" marker. Without an entry (attach, a line whose
blocks disagree, a changed file) the reader keeps its own, more cautious rules. The same file carries
the record types of record arguments (lines with `"kind": "record_arguments"`, record_arguments.py).
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass

from pyserver.debug.values.numba_types import NumbaType
from pyserver.debug.values.record_arguments import RecordArguments

_ABI_TAG = re.compile(r"\[abi:[^\]]*\]")


@dataclass(frozen=True)
class LiveVersion:
    version: str  # the variable's name as in DWARF: `total`, `total$4`
    never_freed: bool  # no `del` of this version on any path to the line: a 0 there is a real 0


def function_name(gdb_func: str) -> str:
    """`__main__::step[abi:v1][abi:c8t…](Array<…>)` -> `step` (the key the debuggee writes)."""
    return _ABI_TAG.sub("", gdb_func).split("(", 1)[0].split("::")[-1]


class LiveVersions:
    """The map the debuggee writes, read as it grows. Entries for one (file, function) that disagree
    (two functions of one name, or specializations that differ) are dropped for the lines concerned."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._offset = 0
        self._lock = threading.Lock()
        # (file, function) -> line -> variable -> candidates, or None where entries disagreed
        self._map: dict[tuple[str, str], dict[int, dict[str, tuple[LiveVersion, ...] | None]]] = {}
        self._record_arguments = RecordArguments()

    def lookup(self, file: str, gdb_func: str, line: int, variable: str) -> tuple[LiveVersion, ...] | None:
        """The versions that may hold `variable` where `line` starts (one, or several when the line
        starts in several blocks), or None when the IR gave no word."""
        with self._lock:
            self._read_new()
            lines = self._map.get((os.path.realpath(file), function_name(gdb_func)))
            if lines is None:
                return None
            return lines.get(line, {}).get(variable)

    def record_argument(
        self, pid: int, file: str, gdb_func: str, param: str, size: int
    ) -> tuple[NumbaType | None, str]:
        """The record type of parameter `param` (a pointer to `size` bytes in DWARF) of the frame's
        function, or (None, why not): RecordArguments.lookup over what the debuggee wrote so far."""
        with self._lock:
            self._read_new()
            return self._record_arguments.lookup(pid, os.path.realpath(file), gdb_func, param, size)

    def _read_new(self) -> None:
        try:
            with open(self.path, encoding="utf-8") as handle:
                handle.seek(self._offset)
                text = handle.read()
        except OSError:
            return
        complete = text[: text.rfind("\n") + 1]  # a line being written is read next time
        self._offset += len(complete.encode("utf-8"))
        for raw in complete.splitlines():
            try:
                record = json.loads(raw)
                if record.get("kind") == "record_arguments":
                    self._record_arguments.merge(record)
                else:
                    self._merge(record)
            except (ValueError, KeyError, TypeError, AttributeError):
                continue

    def _merge(self, record: dict) -> None:  # type: ignore[type-arg]
        key = (os.path.realpath(str(record["file"])), str(record["name"]))
        known = self._map.setdefault(key, {})
        for line_text, variables in record["lines"].items():
            line = int(line_text)
            new = {
                name: tuple(LiveVersion(str(c[0]), bool(c[1])) for c in candidates)
                for name, candidates in variables.items()
            }
            if line not in known:
                known[line] = dict(new)  # type: ignore[arg-type]
                continue
            old = known[line]
            for name in set(old) | set(new):
                if old.get(name) != new.get(name):
                    old[name] = None
