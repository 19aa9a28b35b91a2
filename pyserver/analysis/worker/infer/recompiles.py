"""Recompiles explained: from recorded runs, each compile of a function in the order it
happened, how long it took, and for every compile after the first, which argument's type made Numba
compile again. For `cache=True` functions, whether Numba's cache index holds the signature (a hit next
time) or why not.

Reading the cache index unpickles workspace files: call `cache_status` in trusted workspaces only (the
analysis worker never runs in others).
"""

from __future__ import annotations

import glob
import os
import pickle
import re
import sys
import types as pytypes
from dataclasses import dataclass, field
from typing import Any

from pyserver.record import store

_ARRAY = re.compile(r"^(readonly )?array\((.+), (\d+)d, ([CFA])\)$")
_LAYOUTS = {"C": "C-contiguous", "F": "Fortran-contiguous", "A": "any layout, e.g. a strided slice"}


@dataclass
class ArgumentChange:
    """One argument whose type differs from the closest earlier compile."""

    index: int  # 0-based position
    name: str  # the parameter's name, or "#N" when unknown
    before: str
    after: str
    what: str  # in words: "layout C vs A", "dtype float64 vs float32", "type int64 vs float64"


@dataclass
class CacheStatus:
    # "hit" (the index holds it: loaded, not compiled, next time) | "stale" (a hit, but a module it reads
    # changed since: Numba would load the old code) | "miss" | "unknown"
    state: str
    reason: str  # in words


@dataclass
class CompileRecord:
    args: list[str]
    ok: bool
    seconds: float | None  # None: recorded before compile times were (an older recording)
    kernel: str | None = None  # "vectorize" / "guvectorize" loop
    changed: list[ArgumentChange] = field(default_factory=list)  # empty for the first compile
    because: str = ""  # the change in words; "" for the first compile
    cache: CacheStatus | None = None  # cache=True functions only


def _difference(before: str, after: str) -> str:
    """What changed, in words: "layout A (any layout), was C (C-contiguous)", "float32, was float64"."""
    old, new = _ARRAY.match(before), _ARRAY.match(after)
    if old and new:
        parts = []
        if old.group(2) != new.group(2):
            parts.append(f"dtype {new.group(2)}, was {old.group(2)}")
        if old.group(3) != new.group(3):
            parts.append(f"{new.group(3)}d, was {old.group(3)}d")
        if old.group(4) != new.group(4):
            parts.append(
                f"layout {new.group(4)} ({_LAYOUTS[new.group(4)]}), was {old.group(4)} ({_LAYOUTS[old.group(4)]})"
            )
        if bool(old.group(1)) != bool(new.group(1)):
            parts.append("read-only, was writable" if new.group(1) else "writable, was read-only")
        if parts:
            return ", ".join(parts)
    if before.startswith("omitted(") != after.startswith("omitted("):
        return (
            "left to its default, was passed"
            if after.startswith("omitted(")
            else "passed, was left to its default"
        )
    return f"{after}, was {before}"


def _changes(earlier: list[str], now: list[str], params: list[str]) -> list[ArgumentChange]:
    changes = []
    for index in range(max(len(earlier), len(now))):
        before = earlier[index] if index < len(earlier) else "(not passed)"
        after = now[index] if index < len(now) else "(not passed)"
        if before != after:
            name = params[index] if index < len(params) else f"#{index + 1}"
            changes.append(ArgumentChange(index, name, before, after, _difference(before, after)))
    return changes


def _because(changes: list[ArgumentChange]) -> str:
    return "; ".join(f"'{c.name}': {c.what}" for c in changes) or "the same argument types (another process)"


def compiles_of(
    stores: list[dict[str, Any]], key: str, params: list[str], cache: CacheIndex | None = None
) -> list[CompileRecord]:
    """The recorded compiles of the function `key` ("path::qualname"), first compiled first."""
    entries: list[store.Entry] = []
    seen: set[str] = set()
    for data in stores:
        for entry in store.entries(data, key):
            if entry.key() + str(entry.kernel) not in seen:
                seen.add(entry.key() + str(entry.kernel))
                entries.append(entry)
    # Recordings without a moment keep their file order, after the ones that have one.
    ordered = sorted(enumerate(entries), key=lambda pair: (pair[1].at is None, pair[1].at or 0.0, pair[0]))
    records: list[CompileRecord] = []
    for position, (_, entry) in enumerate(ordered):
        record = CompileRecord(entry.args, entry.ok, entry.seconds, entry.kernel)
        if position > 0:
            earlier = [e.args for _, e in ordered[:position]]
            closest = min(earlier, key=lambda args: len(_changes(args, entry.args, params)))
            record.changed = _changes(closest, entry.args, params)
            record.because = _because(record.changed)
        if cache is not None and entry.kernel is None:
            record.cache = cache.status(entry)
        records.append(record)
    return records


def summary(records: list[CompileRecord]) -> str:
    """The lens title: "3 compiles · 0.41 s" (the time of those whose time was recorded)."""
    timed = [r.seconds for r in records if r.seconds is not None]
    count = f"{len(records)} compile{'s' if len(records) != 1 else ''}"
    if not timed:
        return f"{count} · time not recorded"
    total = f"{sum(timed):.2f} s" + ("" if len(timed) == len(records) else f" ({len(timed)} timed)")
    return f"{count} · {total}"


class CacheIndex:
    """What Numba's cache index (`__pycache__/*.nbi`) holds for one `cache=True` function, judged as Numba
    judges it when the program next runs: the index's Numba version, its source stamp, then per
    signature the function's bytecode and closure hashes."""

    def __init__(self, py_func: Any) -> None:
        self.py_func = py_func
        self.problem: str | None = None
        self.overloads: dict[Any, Any] = {}
        self.codegen_magic: Any = None
        self.code_hash: str | None = None
        self.closure_hash: str | None = None
        self.written: float | None = None  # when the index was last written (its mtime)
        try:
            self._load()
        except Exception as exc:  # an unreadable index: say so, never guess
            self.problem = f"the cache index could not be read ({type(exc).__name__}: {exc})"

    def _load(self) -> None:
        from pyserver import numba_api

        index = numba_api.cache_index_of(self.py_func)
        index_path = index.path
        self.codegen_magic, self.code_hash, self.closure_hash = (
            index.codegen_magic,
            index.code_hash,
            index.closure_hash,
        )
        if not os.path.exists(index_path):
            moved = self._other_lines(index_path)
            self.problem = (
                f"no cache index for it yet ({os.path.basename(index_path)}): it was not run with cache=True"
                + (
                    f" since it moved (an index exists for line {', '.join(moved)}; the line is part of the name)"
                    if moved
                    else ""
                )
            )
            return
        with open(index_path, "rb") as handle:
            version = pickle.load(handle)
            data = handle.read()
        if version != index.version:
            self.problem = f"the cache index was written by Numba {version}, not this one ({index.version})"
            return
        stamp, overloads = pickle.loads(data)
        if stamp != index.source_stamp:
            self.problem = (
                "the source file changed since the cache index was written: Numba drops the whole index, "
                "so every signature compiles again"
            )
            return
        self.overloads = overloads
        self.written = os.path.getmtime(index_path)

    @staticmethod
    def _other_lines(index_path: str) -> list[str]:
        base = os.path.basename(index_path)
        match = re.match(r"^(.*)-(\d+)(\.py\d+.*\.nbi)$", base)
        if match is None:
            return []
        pattern = os.path.join(
            glob.escape(os.path.dirname(index_path)),
            glob.escape(match.group(1)) + "-*" + glob.escape(match.group(3)),
        )
        lines = []
        for other in glob.glob(pattern):
            found = re.match(r"^.*-(\d+)\.py", os.path.basename(other))
            if found and found.group(1) != match.group(2):
                lines.append(found.group(1))
        return sorted(lines, key=int)

    def changed_elsewhere(self) -> list[str]:
        """Files of other modules the function reads (a module, a function or jitted function, a class)
        modified after the index was written. Numba's source stamp covers the function's own file only."""
        if self.written is None:
            return []
        own = os.path.realpath(self.py_func.__code__.co_filename)
        names: set[str] = set()
        codes = [self.py_func.__code__]
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            codes.extend(c for c in code.co_consts if isinstance(c, pytypes.CodeType))
        found: dict[str, str] = {}
        for name in sorted(names):
            value = self.py_func.__globals__.get(name)
            filename = _defining_file(value)
            if filename is None or filename in found:
                continue
            real = os.path.realpath(filename)
            if real == own or _installed(real):
                continue
            try:
                if os.path.getmtime(real) > self.written:
                    found[filename] = f"{os.path.basename(real)} (through '{name}')"
            except OSError:
                continue
        return list(found.values())

    def status(self, entry: store.Entry) -> CacheStatus:
        from pyserver.record import types_codec

        if self.problem is not None:
            unreadable = self.problem.startswith("the cache index could not")
            return CacheStatus("unknown" if unreadable else "miss", self.problem)
        for key in self.overloads:
            sig = key[0]
            if [types_codec.readable(a) for a in (sig.args if hasattr(sig, "args") else sig)] != entry.args:
                continue
            if key[1] != self.codegen_magic:
                return CacheStatus("miss", "cached for another CPU or Numba target (its codegen differs)")
            code_hash, closure_hash = key[2]
            if code_hash != self.code_hash:
                return CacheStatus("miss", "the function's code changed since it was cached")
            if closure_hash != self.closure_hash:
                return CacheStatus("miss", "a variable of its closure changed since it was cached")
            changed = self.changed_elsewhere()
            if changed:
                return CacheStatus(
                    "stale",
                    f"the cache index holds it, but {', '.join(changed)} changed after it was written: Numba does "
                    "not check other modules, so the next run loads code built with the old version (delete "
                    "the function's files in __pycache__ to recompile)",
                )
            return CacheStatus(
                "hit", "the cache index holds it: loaded from the cache next time, not compiled"
            )
        return CacheStatus("miss", "the cache index has no entry for this signature")


def _defining_file(value: Any) -> str | None:
    if isinstance(value, pytypes.ModuleType):
        return getattr(value, "__file__", None)
    py_func = getattr(value, "py_func", None)  # a jitted function
    code = getattr(py_func if py_func is not None else value, "__code__", None)
    if code is not None:
        return str(code.co_filename)
    if isinstance(value, type):
        return getattr(sys.modules.get(value.__module__), "__file__", None)
    return None


def _installed(path: str) -> bool:
    return path.startswith("<") or "site-packages" in path or "dist-packages" in path


def function_compiles(
    stores: list[dict[str, Any]], key: str, params: list[str], py_func: Any, cached: bool
) -> list[CompileRecord]:
    """`compiles_of`, reading the cache index only for a `cache=True` function that has recorded compiles."""
    records = compiles_of(stores, key, params)
    if records and cached:
        index = CacheIndex(py_func)
        entries = {(tuple(e.args), e.kernel): e for data in stores for e in store.entries(data, key)}
        for record in records:
            entry = entries.get((tuple(record.args), record.kernel))
            if entry is not None and record.kernel is None:
                record.cache = index.status(entry)
    return records


def payload(function: str, path: str, records: list[CompileRecord]) -> dict[str, Any]:
    """What the editor's compiles view shows (the `numbaLens/compiles` request's answer)."""
    from dataclasses import asdict

    return {
        "function": function,
        "path": path,
        "summary": summary(records) if records else "no recorded compiles",
        "compiles": [asdict(r) for r in records],
    }


def hover_markdown(records: list[CompileRecord], most: int = 4) -> str:
    """The hover's paragraph: each recorded compile, its time and why it compiled again."""
    lines = [f"**Recorded compiles** ({summary(records)}):"]
    for number, record in enumerate(records[:most], start=1):
        took = "time not recorded" if record.seconds is None else f"{record.seconds * 1000:.0f} ms"
        text = f"{number}. `({', '.join(record.args)})` {took}"
        if record.because:
            text += f": {record.because}"
        if record.cache is not None:
            text += f"; cache {record.cache.state}"
        lines.append(text)
    if len(records) > most:
        lines.append(f"… {len(records) - most} more (the lens lists them all)")
    return "\n".join(lines)
