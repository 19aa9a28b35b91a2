"""The argument types a dispatcher sees at run time for values a Python caller's slice typed
(slices.py): what the Python callers' signatures are made of, folded as the dispatcher folds a call.

Part of the numba_api fence (see its __init__): Numba internals live only in this package.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba.core import types as nbtypes
from numba.typed import Dict as TypedDict
from numba.typed import List as TypedList

from pyserver.caches import BoundedCache, bounded_cache
from pyserver.numba_api.slice_containers import typed_container_arg
from pyserver.numba_api.slices import GENERATOR_TYPE


def dispatcher_arg_type(ty: Any) -> Any | None:
    """The type the dispatcher would see at run time for a value Numba typed as `ty` in Python code:
    literals to their base types, lists to reflected lists, tuples element-wise, typed containers and
    jitted functions as they are (slice_containers); None for anything the dispatcher might type
    differently or cannot take (arrays not sure to be C-contiguous, Python dicts, Python functions,
    modules, imprecise types)."""
    if ty is None or not isinstance(ty, nbtypes.Type):
        return None
    ty = nbtypes.unliteral(ty)
    if isinstance(ty, nbtypes.Array):
        # Only C is sure: an array Numba types F or A may be C-contiguous at run time (a slice that
        # covers a whole axis, a dimension of length 1), and the dispatcher then compiles for C.
        return ty if ty.is_precise() and ty.layout == "C" else None
    if isinstance(ty, nbtypes.Boolean | nbtypes.Integer | nbtypes.Float | nbtypes.Complex):
        return ty
    if isinstance(ty, nbtypes.NoneType | nbtypes.UnicodeType | nbtypes.NPDatetime | nbtypes.NPTimedelta):
        return ty
    if isinstance(ty, nbtypes.Record):
        return ty  # an element of a structured array: typeof gives its dtype's Record, as Numba's indexing
    if GENERATOR_TYPE is not None and isinstance(ty, GENERATOR_TYPE):
        return ty  # every numpy.random.Generator has this one type
    if isinstance(ty, nbtypes.FunctionType) and not isinstance(ty, nbtypes.UndefinedFunctionType):
        return ty  # dispatchers of one signature each, unified in a tuple as typeof unifies them
    if isinstance(ty, nbtypes.BaseTuple):
        items = [dispatcher_arg_type(t) for t in ty.types]  # type: ignore[attr-defined]
        if any(t is None for t in items):
            return None
        return nbtypes.BaseTuple.from_types(items)  # type: ignore[no-any-return]
    if isinstance(ty, nbtypes.List) and not isinstance(ty, nbtypes.ListType):
        item = dispatcher_arg_type(ty.dtype)
        parts = tuple(item.types) if isinstance(item, nbtypes.BaseTuple) else (item,)  # type: ignore[attr-defined]
        plain = (nbtypes.Number, nbtypes.Boolean, nbtypes.Array, nbtypes.UnicodeType)
        if item is None or not all(isinstance(t, plain) for t in parts):
            return None
        return nbtypes.List(item, reflected=True)
    if isinstance(ty, nbtypes.ClassInstanceType):
        return ty
    if isinstance(ty, nbtypes.StructRef) and all(
        dispatcher_arg_type(t) == t for t in getattr(ty, "field_dict", {}).values()
    ):
        return ty  # a StructRef proxy's instance: its type is what its constructor made of the fields
    return typed_container_arg(ty, dispatcher_arg_type)


def ufunc_loop_arg_type(ty: Any) -> Any | None:
    """The element type a lazy ufunc (a DUFunc) compiles a loop for, for an input Numba typed as `ty` in
    Python code: an array's dtype (whatever its layout), a number as NumPy makes it an array (a Python
    int is int64, a float float64); None for anything else."""
    if isinstance(ty, nbtypes.Array):
        dtype = ty.dtype
        return (
            dtype
            if isinstance(dtype, nbtypes.Boolean | nbtypes.Integer | nbtypes.Float | nbtypes.Complex)
            else None
        )
    ty = nbtypes.unliteral(ty) if isinstance(ty, nbtypes.Type) else None
    if isinstance(ty, nbtypes.Boolean | nbtypes.Integer | nbtypes.Float | nbtypes.Complex):
        return ty
    return None


def gufunc_kernel_types(elements: tuple[Any, ...], inputs: list[int], outputs: list[int]) -> tuple[Any, ...]:
    """The kernel argument types a dynamic gufunc compiles for the element types of a call's arguments
    (inputs, then outputs), as Numba's GUFunc makes them: an input of no core dimension is its scalar,
    every other argument an array of its core dimensions (an output of none, one), any layout."""
    ranks = [*inputs, *(max(n, 1) for n in outputs)]
    return tuple(
        element if rank == 0 and index < len(inputs) else nbtypes.Array(element, rank, "A")
        for index, (element, rank) in enumerate(zip(elements, ranks, strict=True))
    )


def array_layout_undecided(ty: Any) -> bool:
    """An array whose layout at run time depends on its shape and strides (Numba typed it F or A)."""
    return isinstance(ty, nbtypes.Array) and ty.layout != "C"


# (dispatcher, argument types, keyword types) -> the folded signature, or None: a dispatcher's Python
# signature is fixed when it is made, so the same call types fold the same way (a call site is folded
# again at every analysis of its file).
_folded: BoundedCache[tuple[Any, ...], tuple[Any, ...] | None] = bounded_cache("numba_api.folded_calls", 4096)


def fold_call_types(dispatcher: Any, args: tuple[Any, ...], kws: dict[str, Any]) -> tuple[Any, ...] | None:
    """The signature the dispatcher compiles for a call with these types (defaults folded as Omitted)."""
    key = (dispatcher, args, tuple(sorted(kws.items())))
    try:
        if key in _folded:
            return _folded[key]
    except TypeError:  # an unhashable type
        return _fold(dispatcher, args, kws)
    found = _folded[key] = _fold(dispatcher, args, kws)
    return found


def _fold(dispatcher: Any, args: tuple[Any, ...], kws: dict[str, Any]) -> tuple[Any, ...] | None:
    try:
        _pysig, folded = dispatcher._compiler.fold_argument_types(args, kws)
    except Exception:  # too many or too few arguments, an unknown keyword: the call would fail
        return None
    return tuple(_star_args_as_passed(t) for t in folded)


def _star_args_as_passed(ty: Any) -> Any:
    """A `*args` tuple as the dispatcher types it at run time: the tuple of the values passed, where
    dispatchers with one signature each unify into first-class functions (`apply(10, foo, bar)` compiles
    `UniTuple(FunctionType[int64(int64)] x 2)`), which folding the argument types alone does not do."""
    if isinstance(ty, nbtypes.StarArgTuple):
        unified = nbtypes.Tuple(list(ty.types))
        if isinstance(unified, nbtypes.UniTuple):
            return unified
    return ty


def boolean_type() -> Any:
    return nbtypes.boolean


def constant_type(value: Any) -> Any | None:
    """The type the dispatcher gives a constant (a parameter's default): typeof, or None."""
    try:
        return numba.typeof(value)
    except Exception:
        return None


def python_classes_of(ty: Any) -> tuple[type, ...] | None:
    """The classes every run-time value the dispatcher types as `ty` is an instance of (one of them, or a
    subclass of one): what `isinstance(value, C)` in a Python caller can be decided by; None where it is
    not known."""
    ty = nbtypes.unliteral(ty) if isinstance(ty, nbtypes.Type) else None
    if isinstance(ty, nbtypes.Array):
        return (np.ndarray,)
    if isinstance(ty, nbtypes.Boolean):
        return (bool, np.bool_)
    if isinstance(ty, nbtypes.Integer):
        return (int, np.integer)
    if isinstance(ty, nbtypes.Float):
        return (float, np.floating)
    if isinstance(ty, nbtypes.Complex):
        return (complex, np.complexfloating)
    if isinstance(ty, nbtypes.UnicodeType):
        return (str,)
    if isinstance(ty, nbtypes.NoneType):
        return (type(None),)
    if isinstance(ty, nbtypes.DictType):
        return (TypedDict,)
    if isinstance(ty, nbtypes.ListType):
        return (TypedList,)
    if isinstance(ty, nbtypes.List):
        return (list,)
    if isinstance(ty, nbtypes.BaseNamedTuple):
        return (ty.instance_class,)  # type: ignore[attr-defined]
    if isinstance(ty, nbtypes.BaseTuple):
        return (tuple,)
    if GENERATOR_TYPE is not None and isinstance(ty, GENERATOR_TYPE):
        return (np.random.Generator,)
    return None
