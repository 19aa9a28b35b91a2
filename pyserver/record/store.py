"""The signatures file (`.numba-lens/signatures.json`): read, merge, write. No Numba import here.

Shape (stable: keys sorted, entries sorted, so re-recording the same runs changes nothing):

    {
      "version": 1,
      "functions": {
        "pkg/module.py::function": [
          {"args": ["array(float64, 1d, C)", "int64"], "types": [{...exact...}, {...}], "ok": true,
           "seconds": 0.181, "at": 1764000000.123}
        ],
        "pkg/module.py::kernel": [
          {"args": ["float64", "float64"], "types": [...], "ok": true, "kernel": "vectorize",
           "returns": "float64", "return_type": {...exact...}},
          ...
        ]
      },
      "notes": ["pkg/module.py::f: skipped (array(float64, 1d, C), MyStruct): MyStruct cannot be stored"]
    }

`args` is for people; `types` is the exact encoding (pyserver.record.types_codec) used to re-create
the Numba types. `ok` is false for a compile that failed: those are the signatures worth checking.

Optional fields (added later; readers must not require them):
- `seconds`: how long that compile took in the recorded process, from Numba's compile events, not counting
  the compiles of other functions it triggered; `at`: when it was first compiled (epoch seconds), which
  orders a function's signatures. Both are kept from the first recording, so re-recording changes nothing.
- `kernel`: "vectorize" or "guvectorize" for a ufunc or gufunc loop; `args` are then the kernel's
  argument types for that loop, `layout` the gufunc's layout ("(n),()->(n)"), `returns`/`return_type`
  a ufunc loop's return type.
- What Numba typed in that compile, so that a function the analysis cannot type again by itself (a
  closure whose cells exist only at run time, an @overload implementation, a kernel of a stencil) still
  shows Numba's own types: `returns` (the return type, readable), `variables` (per variable: `name`,
  `ssa_name`, `type`, `line`, and `literal`, `is_arg`, `used_lines`, `phi` when set, as the hover shows
  them), `first_line` (the code object's first line: its first decorator or its `def`) and `source_hash`
  (source_hash() of the function's text from that line): the types are used only while the text still
  hashes the same. `parallel`: true for a compile of a parallel=True dispatcher, a separate entry from
  a serial dispatcher's compile of the same function and argument types (twin dispatchers).
  `module_copy`: true for a compile of the function as defined in a copy of its module, with other globals
  (a library that runs its modules' code again in new module objects, swaps some globals and jits the
  functions): the module itself does not jit it, and only the recorded types say how Numba typed it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import inspect
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyserver.caches import BoundedCache, bounded_cache

DEFAULT_RELATIVE = Path(".numba-lens") / "signatures.json"
VERSION = 1


@dataclass
class Entry:
    args: list[str]
    types: list[dict[str, Any]] | None  # None: no exact encoding; kept only for what the compile typed
    ok: bool
    seconds: float | None = None
    at: float | None = None
    kernel: str | None = None  # "vectorize" / "guvectorize": a ufunc / gufunc loop
    layout: str | None = None
    returns: str | None = None
    return_type: dict[str, Any] | None = None
    origin: str | None = None  # "kernel": compiled in a notebook's kernel (a source of its own)
    variables: list[dict[str, Any]] | None = None  # Numba's typemap of that compile, as the hover shows it
    first_line: int | None = None
    source_hash: str | None = None
    parallel: bool | None = None  # compiled by a parallel=True dispatcher
    # compiled from a copy of its module: a function whose globals are not its module's own (a library
    # that runs its modules again with other globals and jits their functions)
    module_copy: bool | None = None

    def key(self) -> str:
        return _identity(self.types, self.args)

    def to_json(self) -> dict[str, Any]:
        raw: dict[str, Any] = {"args": self.args, "types": self.types, "ok": self.ok}
        for name in _OPTIONAL:
            value = getattr(self, name)
            if value is not None:
                raw[name] = value
        return raw


_OPTIONAL = (
    "seconds",
    "at",
    "kernel",
    "layout",
    "returns",
    "return_type",
    "origin",
    "variables",
    "first_line",
    "source_hash",
    "parallel",
    "module_copy",
)
# What a compile typed: a later recording of a changed function's text replaces them.
_TYPED = ("returns", "variables", "first_line", "source_hash")


def _identity(types: Any, args: Any) -> str:
    """Two compiles are one entry when their exact types are equal; without them, their readable ones."""
    return json.dumps(types if types is not None else {"args": args}, sort_keys=True)


def function_key(relative_path: str, qualname: str) -> str:
    return f"{Path(relative_path).as_posix()}::{qualname}"


def source_hash(lines: list[str], first_line: int) -> str | None:
    """A hash of the text of the function whose code starts on the 1-based `first_line` of a file's
    `lines` (kept line ends): the block Python's `inspect` gives from that line. None when it has none."""
    if not 0 < first_line <= len(lines):
        return None
    text = [line.rstrip("\r\n") + "\n" for line in lines[first_line - 1 :]]  # the same for CRLF files
    try:
        block = inspect.getblock(text)
    except (SyntaxError, IndentationError, ValueError):
        return None
    return hashlib.sha256("".join(block).encode("utf-8")).hexdigest()[:16]


def empty() -> dict[str, Any]:
    return {"version": VERSION, "functions": {}, "notes": []}


def load(path: str | Path) -> dict[str, Any]:
    """The file's content; an empty store when missing. Raises ValueError when it is not a store."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return empty()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("functions"), dict):
        raise ValueError(f"{path}: not a Numba Lens signatures file (no 'functions' object)")
    data.setdefault("notes", [])
    return data


def entries(data: dict[str, Any], key: str) -> list[Entry]:
    """The entries of `key` with exact argument types (those the analysis can type again)."""
    return [e for e in typed_entries(data, key, inexact=False) if e.types is not None]


# store path -> ((inode, modification time, size), its content)
_read_stores: BoundedCache[str, tuple[tuple[int, int, int], dict[str, Any]]] = bounded_cache(
    "record.read_stores", 64
)
# store path -> (its version, the files it holds typed compiles of)
_typed_files: BoundedCache[str, tuple[tuple[int, int, int], frozenset[str]]] = bounded_cache(
    "record.typed_files", 64
)


def _version(path: str) -> tuple[int, int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_ino, stat.st_mtime_ns, stat.st_size)


def _load_versioned(path: str) -> tuple[tuple[int, int, int], dict[str, Any]] | None:
    version = _version(path)
    if version is None:
        return None
    kept = _read_stores.get(path)
    if kept is not None and kept[0] == version:
        return kept
    try:
        kept = (version, load(path))
    except (ValueError, OSError):
        return None
    _read_stores[path] = kept
    return kept


def load_current(path: str) -> dict[str, Any] | None:
    """The store at `path`, read again only when the file changed; None when it is missing or not a
    store. Callers share the result: it is never to be modified."""
    kept = _load_versioned(path)
    return None if kept is None else kept[1]


def files_with_typed_compiles(
    root: str | Path, signature_files: list[str] | tuple[str, ...]
) -> frozenset[str]:
    """The real paths of the workspace files whose functions the stores (the default one when none is
    given) hold what Numba typed (`variables`): files with jitted code, even where no decorator or jit
    call in them says so (another module jitted their functions at run time). Read once per version."""
    found: set[str] = set()
    for name in signature_files or [str(DEFAULT_RELATIVE)]:
        path = os.path.join(str(root), name)
        read = _load_versioned(path)
        if read is None:
            continue
        version, data = read
        kept = _typed_files.get(path)
        if kept is None or kept[0] != version:
            files = frozenset(
                os.path.realpath(os.path.join(str(root), key.partition("::")[0]))
                for key, entries in data["functions"].items()
                if isinstance(entries, list)
                and any(isinstance(e, dict) and e.get("variables") for e in entries)
            )
            kept = _typed_files[path] = (version, files)
        found |= kept[1]
    return frozenset(found)


def typed_entries(data: dict[str, Any], key: str, inexact: bool = True) -> list[Entry]:
    """The entries of `key`; with `inexact`, also those whose argument types could not be stored exactly
    but whose compile's types (`variables`) were kept."""
    found = []
    for raw in data.get("functions", {}).get(key, []):
        if not isinstance(raw, dict) or not isinstance(raw.get("args"), list):
            continue
        exact = isinstance(raw.get("types"), list)
        if exact or (inexact and raw.get("types") is None and isinstance(raw.get("variables"), list)):
            entry = Entry(
                [str(a) for a in raw["args"]], raw["types"] if exact else None, bool(raw.get("ok", True))
            )
            for name in ("seconds", "at"):
                if isinstance(raw.get(name), int | float):
                    setattr(entry, name, float(raw[name]))
            for name in ("kernel", "layout", "returns", "origin"):
                if isinstance(raw.get(name), str):
                    setattr(entry, name, raw[name])
            if isinstance(raw.get("return_type"), dict):
                entry.return_type = raw["return_type"]
            if isinstance(raw.get("variables"), list):
                entry.variables = [v for v in raw["variables"] if isinstance(v, dict)]
            if isinstance(raw.get("first_line"), int):
                entry.first_line = raw["first_line"]
            if isinstance(raw.get("source_hash"), str):
                entry.source_hash = raw["source_hash"]
            if raw.get("parallel") is True:
                entry.parallel = True
            if raw.get("module_copy") is True:
                entry.module_copy = True
            found.append(entry)
    return found


def _other_definition(raw: dict[str, Any], entry: Entry, lines: list[str] | None) -> bool:
    """Is the stored entry `raw` of another definition of the name, its text unchanged at its line?"""
    line, hashed = raw.get("first_line"), raw.get("source_hash")
    if not lines or entry.first_line is None or not isinstance(line, int) or line == entry.first_line:
        return False
    return hashed is not None and source_hash(lines, line) == hashed


# Set on an entry compiled more than once for its types that returned different types (closures of one
# `def` over other values): its return type is unknown, and later compiles do not fill it in again.
_RETURNS_DIFFER = "returns_differ"


def _keep_what_both_typed(raw: dict[str, Any], entry: Entry) -> bool:
    """Another compile of the same `def` for the same types, by another closure of it (a factory's, over
    other captured values): keep only the variables both typed alike, and no return type when theirs
    differ. True if the stored entry changed."""
    changed = False
    stored = raw.get("variables")
    if isinstance(stored, list) and entry.variables is not None:
        kept = [v for v in stored if v in entry.variables]
        if len(kept) != len(stored):
            raw["variables"] = kept
            changed = True
    if entry.returns is not None and raw.get("returns") not in (None, entry.returns):
        raw.pop("returns", None)
        raw.pop("return_type", None)
        raw[_RETURNS_DIFFER] = True
        changed = True
    return changed


def merge(data: dict[str, Any], key: str, entry: Entry, lines: list[str] | None = None) -> bool:
    """Add `entry` under `key`; a signature seen failing and then succeeding keeps ok=true. The first
    recording's time and moment are kept (re-recording the same runs changes nothing). True if changed.
    `lines`: the file's text now; a stored entry of another definition of the same name (a factory's
    branches) whose text is still there is another function's, not this one moved."""
    functions = data.setdefault("functions", {})
    existing = functions.setdefault(key, [])
    for raw in existing:
        if (
            _identity(raw.get("types"), raw.get("args")) == entry.key()
            and raw.get("kernel") == entry.kernel
            and raw.get("parallel") == entry.parallel
            and not _other_definition(raw, entry, lines)
        ):
            changed = False
            moved = entry.first_line is not None and raw.get("first_line") not in (None, entry.first_line)
            edited = entry.source_hash is not None and raw.get("source_hash") not in (None, entry.source_hash)
            if moved or edited:
                for name in _TYPED:  # the function's text changed since: its new types replace the old
                    raw.pop(name, None)
                raw.pop(_RETURNS_DIFFER, None)
            elif _keep_what_both_typed(raw, entry):
                changed = True
            if entry.ok and not raw.get("ok", True):
                raw["ok"] = True
                if entry.seconds is not None:
                    raw["seconds"] = entry.seconds  # the compile that worked is the one that counts
                changed = True
            for name in _OPTIONAL:
                value = getattr(entry, name)
                if raw.get(_RETURNS_DIFFER) and name in ("returns", "return_type"):
                    continue
                if value is not None and raw.get(name) is None:
                    raw[name] = value
                    changed = True
            return changed
    existing.append(entry.to_json())
    return True


def add_note(data: dict[str, Any], note: str) -> bool:
    notes = data.setdefault("notes", [])
    if note in notes:
        return False
    notes.append(note)
    return True


def normalised(data: dict[str, Any]) -> dict[str, Any]:
    functions = {
        key: sorted(
            value,
            key=lambda e: (
                json.dumps(e.get("args")),
                json.dumps(e.get("types"), sort_keys=True),
                bool(e.get("parallel")),
            ),
        )
        for key, value in sorted(data.get("functions", {}).items())
    }
    return {"version": VERSION, "functions": functions, "notes": sorted(set(data.get("notes", [])))}


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(normalised(data), indent=2, sort_keys=True) + "\n"


@contextlib.contextmanager
def locked(path: str | Path) -> Iterator[dict[str, Any]]:
    """Read-modify-write under an exclusive lock (several recording processes may write at once)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    lock_path = target.with_name(target.name + ".lock")
    with open(lock_path, "a+") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            try:
                data = load(target)
            except ValueError:
                data = empty()
            before = dumps(data)
            yield data
            after = dumps(data)
            if after != before or not target.exists():
                _atomic_write(target, after)
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _atomic_write(target: Path, text: str) -> None:
    fd, temp = tempfile.mkstemp(prefix=target.name, dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
