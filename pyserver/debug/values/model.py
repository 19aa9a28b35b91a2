"""What the value reader gives the adapter: variables, scopes and the handles that expand them
(reader.py fills them; bridge.py turns them into DAP)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyserver.debug.values.numba_types import NumbaType

UNAVAILABLE = "<unavailable>"
PREVIEW_ITEMS = 10
MAX_READ = 1 << 20  # one -data-read-memory-bytes call reads at most this much
MAX_STRING_CHARS = 10_000
DEFAULT_PAGE = 1000


class JitValueError(Exception):
    """An expression or handle that cannot be evaluated; the message is for the user."""


@dataclass
class ChildrenHandle:
    """Opaque to the adapter: pass it back to `JitValueReader.children`. Valid while the thread stays
    stopped (the adapter drops its variable references on resume, as DAP requires)."""

    kind: str  # "static" | "array" | "list" | "dict"
    thread_id: int
    frame_level: int
    items: list[JitVariable] = field(default_factory=list)  # static children
    data: int = 0  # array data pointer / list items pointer / dict entries pointer
    shape: tuple[int, ...] = ()
    strides: tuple[int, ...] = ()
    dtype: NumbaType | None = None
    layout: str = "A"
    count: int = 0  # list / dict: number of items
    item_size: int = 0
    key_type: NumbaType | None = None
    key_offset: int = 0
    value_offset: int = 0
    expression: str = ""  # evaluate name of the parent


@dataclass
class JitVariable:
    name: str
    value: str
    type: str  # Numba type name ("" when unknown)
    children: ChildrenHandle | None = None
    named_count: int = 0
    indexed_count: int = 0
    available: bool = True
    evaluate_name: str | None = None
    # The decoded value for expression evaluation: a Python scalar, or None for containers.
    raw: Any = field(default=None, repr=False, compare=False)
    # Extra notes for the user (why unavailable, which version was chosen).
    note: str = ""

    def to_dap(self) -> dict[str, Any]:
        """A DAP `Variable` without `variablesReference`: the adapter adds it for `children` (and keeps
        the handle to answer `variables` with `JitValueReader.children(handle, start, count)`)."""
        out: dict[str, Any] = {"name": self.name, "value": self.value, "type": self.type}
        if self.evaluate_name:
            out["evaluateName"] = self.evaluate_name
        if self.named_count:
            out["namedVariables"] = self.named_count
        if self.indexed_count:
            out["indexedVariables"] = self.indexed_count
        if not self.available:
            out["value"] = f"{UNAVAILABLE} ({self.note})" if self.note else UNAVAILABLE
            out["presentationHint"] = {"attributes": ["readOnly"]}
        return out


@dataclass
class Scope:
    name: str  # "Arguments" | "Locals"
    variables: list[JitVariable]
    thread_id: int = 0
    frame_level: int = 0

    @property
    def handle(self) -> ChildrenHandle:
        """Expand a scope like a variable: `children(scope.handle)` pages its variables."""
        return ChildrenHandle("static", self.thread_id, self.frame_level, items=self.variables)

    def to_dap(self) -> dict[str, Any]:
        """A DAP `Scope` without `variablesReference` (the adapter maps it to `handle`)."""
        return {
            "name": self.name,
            "presentationHint": "arguments" if self.name == "Arguments" else "locals",
            "namedVariables": len(self.variables),
            "expensive": False,
        }
