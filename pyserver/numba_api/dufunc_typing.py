"""A workspace `@vectorize` kernel called from a jitted function, typed while the analysis infers, with no
loop compiled: Numba's DUFunc typing picks one of the kernel's loops (find_ewise_function; a frozen kernel:
the first its arguments cast to, by NumPy's rules) or compiles one for the call's element types. Here the loops are the
ones compiled so far, then the recorded signatures not compiled yet, in the order Numba compiled them
when asked (decorator_hooks: the recording kernel); a loop whose signature does not write its return type,
and the loop a kernel that is not frozen would compile, get the kernel function's return type from the
analysis's own inference (its typing context resolves the function's lazy dispatcher)."""

from __future__ import annotations

from typing import Any

from numba.core import errors, sigutils, types
from numba.core.registry import cpu_target
from numba.core.typing import npydecl
from numba.core.typing.templates import signature
from numba.np import numpy_support

from pyserver.numba_api.callees import current_callee_resolver


class _LoopTable:
    """What numpy_support.ufunc_find_matching_loop reads of a ufunc: its arity, name and loops."""

    def __init__(self, ufunc: Any, loops: list[tuple[tuple[Any, ...], Any]]) -> None:
        self.nin, self.nout, self.__name__ = ufunc.nin, ufunc.nout, ufunc.__name__
        self.types = [
            "".join(numpy_support.as_dtype(t).char for t in args) + "->" + numpy_support.as_dtype(ret).char
            for args, ret in loops
        ]


def _return_type(function: Any, args: tuple[Any, ...]) -> Any:
    """The kernel function's return type for `args`, as the analysis infers it."""
    found = cpu_target.typing_context.resolve_function_type(types.Dispatcher(function), args, {})
    if found is None:
        raise errors.TypingError(f"cannot type {function.py_func.__name__} for {args}")
    return found.return_type


def _loops(
    dufunc: Any, function: Any, recorded: list[Any], compiled: int
) -> list[tuple[tuple[Any, ...], Any]]:
    loops = [(tuple(sig.args), sig.return_type) for sig in dufunc._dispatcher.overloads]
    for written in recorded[compiled:]:
        args, return_type = sigutils.normalize_signature(written)
        if all(tuple(args) != known for known, _ in loops):
            loops.append(
                (tuple(args), return_type if return_type is not None else _return_type(function, args))
            )
    return loops


def ewise_signature(
    dufunc: Any, function: Any, recorded: list[Any], compiled: int, ewise_types: tuple[Any, ...]
) -> Any:
    """The element-wise signature Numba's DUFunc.find_ewise_function gives (None: no loop matches a frozen
    kernel), without compiling: what a loop compiled for `ewise_types` would be where Numba compiles one.
    `function`: the kernel function's lazy dispatcher; `recorded`: the kernel's recorded signatures, of
    which the first `compiled` are compiled already."""
    loops = _loops(dufunc, function, recorded, compiled)
    if dufunc._frozen:
        table: Any = _LoopTable(dufunc.ufunc, loops)
        loop: Any = numpy_support.ufunc_find_matching_loop(table, ewise_types)
        if loop is None:
            return None
        ewise_types = tuple(loop.inputs + loop.outputs)[: len(ewise_types)]
    for args, return_type in loops:
        if args == ewise_types:
            return signature(return_type, *args)
    if dufunc._frozen:
        return None
    return_type = _return_type(function, ewise_types)
    numpy_support.as_dtype(return_type)  # a loop returns a NumPy scalar (Numba's compile says so too)
    return signature(return_type, *ewise_types)


def kernel_loop_of_call(fnty: Any, call_signature: Any) -> tuple[Any, tuple[Any, ...]]:
    """A jitted function's call of a workspace `@vectorize` kernel (`cndf2(d1)`, `cndf2(values)`): the
    kernel function's dispatcher and the loop the call runs, the one Numba's DUFunc typing picks, or
    compiles, for the call's element types (`_type_me`), so that the kernel is typed for it as for any
    jitted caller's types. (None, ()) for any other call, and outside the analysis."""
    dufunc: Any = getattr(fnty, "typing_key", None) if isinstance(fnty, types.Function) else None
    state = getattr(dufunc, "__dict__", None) or {}
    if "_lens_function" not in state or current_callee_resolver() is None:
        return None, ()
    try:
        inputs = npydecl.Numpy_rules_ufunc._handle_inputs(dufunc.ufunc, tuple(call_signature.args), {})
        base_types, explicit_outputs = inputs[0], inputs[1]
        found, _ = dufunc.find_ewise_function(tuple(base_types[: len(base_types) - len(explicit_outputs)]))
    except Exception:  # what Numba's typing of the call rejected: the caller's error says it
        return None, ()
    return (None, ()) if found is None else (state["_lens_function"], tuple(found.args))
