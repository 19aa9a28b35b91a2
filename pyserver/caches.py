"""The bounded caches of a process, in one registry.

Every memo that lives as long as its process (module-level, or held by a long-lived object such as the
worker's analyzer) is a BoundedCache made here: each has a name and a bound, evicts the least recently
used entry past it, and `registered()` lists them all (sizes for diagnostics; `clear_all()` for tests).
`functools.lru_cache` stays where a pure function of hashable arguments is all there is.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar, overload

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
D = TypeVar("D")

_MISSING = object()


class BoundedCache(Generic[K, V]):
    """A mapping that keeps at most `maxsize` entries, evicting the least recently used one."""

    def __init__(self, name: str, maxsize: int) -> None:
        if maxsize <= 0:
            raise ValueError(f"cache {name!r}: maxsize must be positive, not {maxsize}")
        self.name = name
        self.maxsize = maxsize
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        with self._lock:
            value = self._entries.get(key, _MISSING)  # type: ignore[arg-type]
            if value is _MISSING:
                return default
            self._entries.move_to_end(key)
            return value

    def __getitem__(self, key: K) -> V:
        with self._lock:
            value = self._entries[key]
            self._entries.move_to_end(key)
            return value

    def __setitem__(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[K]:
        with self._lock:
            return iter(list(self._entries))

    def pop(self, key: K, default: V | None = None) -> V | None:
        with self._lock:
            return self._entries.pop(key, default)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_registry: weakref.WeakSet[BoundedCache[object, object]] = weakref.WeakSet()
_registry_lock = threading.Lock()


def bounded_cache(name: str, maxsize: int) -> BoundedCache[K, V]:
    """A new BoundedCache, registered for this process (dropped from the registry with its owner)."""
    cache: BoundedCache[K, V] = BoundedCache(name, maxsize)
    with _registry_lock:
        _registry.add(cache)  # type: ignore[arg-type]
    return cache


def registered() -> dict[str, tuple[int, int]]:
    """Every live registered cache: name -> (entries, bound); caches sharing a name are summed."""
    sizes: dict[str, tuple[int, int]] = {}
    with _registry_lock:
        caches = list(_registry)
    for cache in caches:
        entries, bound = sizes.get(cache.name, (0, 0))
        sizes[cache.name] = (entries + len(cache), bound + cache.maxsize)
    return sizes


def clear_all() -> None:
    with _registry_lock:
        caches = list(_registry)
    for cache in caches:
        cache.clear()
