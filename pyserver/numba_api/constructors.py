"""Stand-ins for NumPy constructors whose result type a slice fixes statically (python_callers): a new
C-contiguous array of a known dtype and rank, whatever Numba can type of the data inside it.

Part of the numba_api fence (see its __init__): Numba internals live only in this package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba.core import errors
from numba.core import types as nbtypes
from numba.core.registry import cpu_target
from numba.core.typing.typeof import typeof
from numba.np import numpy_support

__all__ = [
    "array_stand_in",
    "defaults_applied",
    "numba_dtype_supported",
    "python_value_stand_in",
    "sliced_numba_type",
]

_ARRAY_STAND_INS: dict[tuple[str, int], Callable[..., Any]] = {}
_VALUE_STAND_INS: dict[type, Callable[..., Any]] = {}
_ARRAY_STAND_IN_LIMIT = 256


def numba_dtype_supported(dtype: np.dtype[Any]) -> bool:
    """Can Numba hold an array of this dtype (a number, a boolean, a record of them, ...)?"""
    try:
        numpy_support.from_dtype(dtype)
    except (errors.NumbaNotImplementedError, NotImplementedError, errors.NumbaValueError):
        return False
    return True


def array_stand_in(dtype: np.dtype[Any], ndim: int) -> Callable[..., Any] | None:
    """A function that a slice calls in place of `np.array(data, dtype=...)` when the dtype and the
    rank of the data fix the result: typed as the array numba.typeof gives a new C array of `dtype`
    and `ndim` (types.Array(from_dtype(dtype), ndim, "C")), never run. None if Numba has no such
    array type."""
    if ndim < 1 or not numba_dtype_supported(dtype):
        return None
    key = (dtype.str if dtype.names is None else repr(dtype.descr) + str(dtype.isalignedstruct), ndim)
    found = _ARRAY_STAND_INS.get(key)
    if found is not None:
        return found
    stand_in = _typed_stand_in(nbtypes.Array(numpy_support.from_dtype(dtype), ndim, "C"))
    if len(_ARRAY_STAND_INS) >= _ARRAY_STAND_IN_LIMIT:
        _ARRAY_STAND_INS.pop(next(iter(_ARRAY_STAND_INS)))
    _ARRAY_STAND_INS[key] = stand_in
    return stand_in


def python_value_stand_in(python_type: type) -> Callable[..., Any] | None:
    """A function that a slice calls in place of a value known only to be an instance of `python_type`
    (int or float: what argparse's `type=int` makes): typed as numba.typeof gives such a value."""
    if python_type not in (int, float):
        return None
    found = _VALUE_STAND_INS.get(python_type)
    if found is None:
        found = _VALUE_STAND_INS[python_type] = _typed_stand_in(typeof(python_type()))
    return found


def sliced_numba_type(scalar: Any, index: Any) -> Any | None:
    """The array type that slicing a Numba scalar type spells (`types.float64[:]`, `int32[:, ::1]`:
    Numba's own __getitem__ of its type, which runs nothing of the user's), or None where `scalar` is
    no Numba type or the index spells no array type."""
    if not isinstance(scalar, nbtypes.Type) or isinstance(scalar, nbtypes.Array):
        return None
    try:
        found = scalar[index]
    except Exception:  # an index Numba's types do not take
        return None
    return found if isinstance(found, nbtypes.Array) else None


def _typed_stand_in(result: Any) -> Callable[..., Any]:
    """A function of no arguments that Numba types as returning `result`."""

    def stand_in() -> Any:  # pragma: no cover - typed, never run
        raise RuntimeError("a Numba Lens stand-in: typed only")

    from numba.core.extending import type_callable

    @type_callable(stand_in)  # type: ignore[misc]
    def _type_stand_in(context: Any) -> Any:
        def typer() -> Any:
            return result

        return typer

    cpu_target.typing_context.refresh()  # load the new template before the next slice is typed
    return stand_in


def defaults_applied(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """Argument types with each left-out default (`omitted(default=1.0)`) replaced by the type of its
    value, as a jitclass's constructor called from Python passes it (it applies the defaults before
    calling the compiled __init__). None when a default has no Numba type."""
    applied = []
    for arg in args:
        if isinstance(arg, nbtypes.Omitted):
            try:
                arg = typeof(arg.value)
            except (ValueError, TypeError):
                return None
        applied.append(arg)
    return tuple(applied)
