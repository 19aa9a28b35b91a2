"""The decorators that make nothing jitted, by the last part of their dotted name: one table, with the
subset each use needs."""

from __future__ import annotations

# Decorators of the standard library and of pytest that wrap or mark a function and never jit it.
PLAIN_DECORATORS = frozenset(
    {
        "property",
        "staticmethod",
        "classmethod",
        "abstractmethod",
        "cached_property",
        "setter",
        "getter",
        "deleter",
        "lru_cache",
        "cache",
        "wraps",
        "contextmanager",
        "dataclass",
        "total_ordering",
        "singledispatch",
        "fixture",
        "parametrize",
    }
)

# Discovery: a module whose only decorators are these is not loaded. `overload` here is typing.overload
# by its bare name (Numba's @overload is found by its import, not by this table).
NEVER_JITTING_DECORATORS = PLAIN_DECORATORS | frozenset(
    {"asynccontextmanager", "overload", "override", "skip", "skipif", "xfail", "usefixtures"}
)

# The top-level slice: the bodies these decorate are not roots of the slice. `overload_typing` is
# typing.overload imported under that name; `mark` is pytest.mark used bare; the others are pytest's marks.
NOT_SLICE_ROOT_DECORATORS = PLAIN_DECORATORS | frozenset(
    {"overload_typing", "mark", "skip", "skipif", "xfail", "usefixtures", "filterwarnings"}
)
