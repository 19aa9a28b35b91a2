"""Names that definitions-only loading leaves without a value, as another module sees them.

A workspace module imported under definitions-only loading does not run the statements that define a
name only for their effects (effects.py). `from .tables import CONSTANTS` must still import: the module
answers such a name with an UnavailableName (PEP 562 module `__getattr__`), which says why it has no value
the moment anything uses it. The analysis does not check the jitted functions that read one.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, NoReturn

# A module's names without a value (name -> why), kept on the module for the modules that import it.
UNAVAILABLE_ATTRIBUTE = "__numba_lens_unavailable__"


class NameUnavailableError(Exception):
    """A statement used a name that definitions-only loading left without a value."""

    def __init__(self, unavailable: UnavailableName) -> None:
        super().__init__(unavailable.message())
        self.name = unavailable.name
        self.module = unavailable.module
        self.reason = unavailable.reason

    def why_skipped(self) -> str:
        """Why a statement that read the name did not run (SkippedStatement.reason)."""
        return f"it reads `{self.name}` from {self.module}, which has no value during the analysis: {self.reason}"

    def reason_for_reader(self, line: int) -> str:
        """Why the names a statement reading this one binds have no value either (UnavailableName.reason)."""
        return f"line {line} reads `{self.name}` from {self.module}, which has no value: {self.reason}"


class UnavailableName:
    """Stands for a module global that the analysis did not compute; any use raises a clear error."""

    __slots__ = ("module", "name", "reason")

    def __init__(self, module: str, name: str, reason: str) -> None:
        object.__setattr__(self, "module", module)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "reason", reason)

    def message(self) -> str:
        return (
            f"`{self.name}` from {self.module} has no value during the analysis: {self.reason}, which the"
            " analysis never runs"
        )

    def _fail(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NameUnavailableError(self)

    __call__ = __getitem__ = __setitem__ = __iter__ = __len__ = __bool__ = __contains__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _fail
    __neg__ = __index__ = __int__ = __float__ = __lt__ = __le__ = __gt__ = __ge__ = _fail

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):
            # probes (copy, pickle, Numba's typeof and `_numba_type_`, the analysis's own markers) see a
            # plain object
            raise AttributeError(attribute)
        raise NameUnavailableError(self)

    def __repr__(self) -> str:
        return f"<unavailable {self.module}.{self.name}: {self.reason}>"


def module_getattr(module: types.ModuleType, unavailable: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that answers the names in `unavailable` (read when asked: the slice fills
    it in before the module's code runs) and raises AttributeError, as Python would, for the rest."""

    def __getattr__(name: str) -> Any:
        if name in unavailable:
            return UnavailableName(module.__name__, name, unavailable[name])
        raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")

    return __getattr__


def unavailable_globals(namespace: dict[str, Any]) -> set[str]:
    """Names in a module's namespace whose values (or whose modules' attributes) have no value: a global
    bound to an UnavailableName, and the unavailable names of a module it imported whole."""
    names: set[str] = set()
    for name, value in list(namespace.items()):
        if isinstance(value, UnavailableName):
            names.add(name)
        elif isinstance(value, types.ModuleType):
            # Read from the module's own dict: a lazy module proxy's `__getattr__` imports, and raises
            # what the import raises.
            try:
                names.update(vars(value).get(UNAVAILABLE_ATTRIBUTE) or ())
            except Exception:  # a module object of another library's making
                continue
    return names
