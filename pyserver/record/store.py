"""The signatures file (`.numba-lens/signatures.json`): read, merge, write. No Numba import here.

Shape (stable: keys sorted, entries sorted, so re-recording the same runs changes nothing):

    {
      "version": 1,
      "functions": {
        "pkg/module.py::function": [
          {"args": ["array(float64, 1d, C)", "int64"], "types": [{...exact...}, {...}], "ok": true}
        ]
      },
      "notes": ["pkg/module.py::f: skipped (array(float64, 1d, C), MyStruct): MyStruct cannot be stored"]
    }

`args` is for people; `types` is the exact encoding (pyserver.record.types_codec) used to re-create
the Numba types. `ok` is false for a compile that failed: those are the signatures worth checking.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_RELATIVE = Path(".numba-lens") / "signatures.json"
VERSION = 1


@dataclass
class Entry:
    args: list[str]
    types: list[dict[str, Any]]
    ok: bool

    def key(self) -> str:
        return json.dumps(self.types, sort_keys=True)


def function_key(relative_path: str, qualname: str) -> str:
    return f"{Path(relative_path).as_posix()}::{qualname}"


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
    found = []
    for raw in data.get("functions", {}).get(key, []):
        if isinstance(raw, dict) and isinstance(raw.get("types"), list) and isinstance(raw.get("args"), list):
            found.append(Entry([str(a) for a in raw["args"]], raw["types"], bool(raw.get("ok", True))))
    return found


def merge(data: dict[str, Any], key: str, entry: Entry) -> bool:
    """Add `entry` under `key`; a signature seen failing and then succeeding keeps ok=true. True if changed."""
    functions = data.setdefault("functions", {})
    existing = functions.setdefault(key, [])
    for raw in existing:
        if json.dumps(raw.get("types"), sort_keys=True) == entry.key():
            if entry.ok and not raw.get("ok", True):
                raw["ok"] = True
                return True
            return False
    existing.append({"args": entry.args, "types": entry.types, "ok": entry.ok})
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
            value, key=lambda e: (json.dumps(e.get("args")), json.dumps(e.get("types"), sort_keys=True))
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
