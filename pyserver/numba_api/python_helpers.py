"""A workspace's plain Python function that a caller's slice calls (`OPT = randfloat(np.random.random(n),
0.5, 1.0)`, `data = make_data(1000)`): typed by Numba's inference of its body, as a slice's own statements
are, with the same rules of what Python and Numba could type differently. Nothing runs.

Part of the numba_api fence (see its __init__): Numba internals live only in this package.
"""

from __future__ import annotations

import inspect
import types
import weakref
from typing import Any

from numba.core import errors
from numba.core import types as nbtypes
from numba.core.typing import signature

from pyserver.caches import BoundedCache, bounded_cache
from pyserver.numba_api.slices import type_python_slice, value_type

__all__ = ["module_with_helper_stand_ins", "python_helper_of", "python_helper_stand_in"]


class PythonHelperType(nbtypes.Callable, nbtypes.Opaque):  # type: ignore[misc]
    """The Numba type of a helper's stand-in: a call is typed by inferring the helper's body for the
    argument types (PythonHelper.returns)."""

    # the slice's own check of what Python could compute differently (slices._python_and_numba_may_differ)
    # leaves this call to the helper's typing, which made that check on each of its statements
    typed_as_python = True

    def __init__(self, helper: PythonHelper) -> None:
        self.helper = helper
        super().__init__(name=f"python_function({helper.py_func.__qualname__}, {id(helper)})")

    @property
    def key(self) -> Any:
        return self.helper

    def get_call_type(self, context: Any, args: Any, kws: Any) -> Any:
        returned = self.helper.returns(tuple(args), dict(kws))
        if isinstance(returned, str):
            raise errors.TypingError(returned)
        return signature(returned, *args)

    def get_call_signatures(self) -> tuple[list[Any], bool]:
        return [], True

    def get_impl_key(self, sig: Any) -> Any:
        return self.helper


class PythonHelper:
    """The stand-in a slice calls in place of a workspace's Python function."""

    def __init__(self, py_func: Any) -> None:
        self.py_func = py_func
        self._parameters = inspect.signature(py_func).parameters

    @property
    def _numba_type_(self) -> PythonHelperType:
        return PythonHelperType(self)

    def __repr__(self) -> str:
        return f"<Python function {self.py_func.__module__}.{self.py_func.__qualname__}, typed in a slice>"

    def returns(self, args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
        """The type of what the function returns for these argument types, or why it is not known.
        Inferred at each call (Numba keeps it for the rest of one slice's inference): what the function
        reads, a jitted callee in another file say, may have changed since another slice asked."""
        bound = self._bind(args, kws)
        return bound if isinstance(bound, str) else self._infer(bound)

    def _bind(self, args: tuple[Any, ...], kws: dict[str, Any]) -> tuple[Any, ...] | str:
        """The parameters' types in order: a value passed is typed as Python holds it (no literal), a
        parameter left out as its default's value."""
        name = self.py_func.__qualname__
        try:
            bound = inspect.Signature(list(self._parameters.values())).bind(*args, **kws)
        except TypeError as exc:
            return f"the call of '{name}' does not match its parameters ({exc})"
        types: list[Any] = []
        for parameter in self._parameters.values():
            if parameter.name in bound.arguments:
                types.append(nbtypes.unliteral(bound.arguments[parameter.name]))
                continue
            default = value_type(parameter.default)
            if default is None:
                return f"the default of '{parameter.name}' of '{name}' has no Numba type"
            types.append(nbtypes.unliteral(default))
        return tuple(types)

    def _infer(self, arg_types: tuple[Any, ...]) -> Any:
        name = self.py_func.__qualname__
        typing = type_python_slice(self.py_func, arg_types)
        if typing.error is not None or typing.failed:
            return f"Numba cannot type the Python function '{name}' ({typing.error or 'a typing error'})"
        if typing.conflicts or typing.mixed_anywhere:
            return (
                f"the Python function '{name}' computes values that may have other types in Python than "
                "in Numba"
            )
        if len(typing.returned) != 1 or typing.return_type is None:
            shown = " or ".join(sorted(typing.returned)) or "nothing"
            return f"the Python function '{name}' returns values of several types ({shown})"
        returned = nbtypes.unliteral(typing.return_type)
        if not returned.is_precise():
            return f"Numba cannot type what the Python function '{name}' returns"
        if _holds_readonly(returned):
            # Numba types a global array as a read-only constant; Python returns the array itself
            return (
                f"the Python function '{name}' returns a module's global array, which Numba types read-only"
            )
        return returned


def _holds_readonly(ty: Any) -> bool:
    if isinstance(ty, nbtypes.Array):
        return not ty.mutable
    if isinstance(ty, nbtypes.BaseTuple):
        return any(_holds_readonly(t) for t in ty.types)  # type: ignore[attr-defined]
    if isinstance(ty, nbtypes.List):
        return _holds_readonly(ty.dtype)
    return False


# id(function) -> (the function, its stand-in): the function kept alive so that its id is not reused
_stand_ins: BoundedCache[int, tuple[Any, PythonHelper]] = bounded_cache("numba_api.python_helpers", 512)


def python_helper_stand_in(value: Any) -> PythonHelper | None:
    """The stand-in for a plain Python function (no closure, no wrapper, no generator, no `*args` or
    `**kwargs`), else None."""
    if not inspect.isfunction(value) or value.__closure__ or hasattr(value, "__wrapped__"):
        return None
    if inspect.isgeneratorfunction(value) or inspect.iscoroutinefunction(value):
        return None
    if inspect.isasyncgenfunction(value):
        return None
    try:
        parameters = inspect.signature(value).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters):
        return None
    known = _stand_ins.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    helper = PythonHelper(value)
    _stand_ins[id(value)] = (value, helper)
    return helper


# a workspace module -> its copy whose plain functions are stand-ins (module_with_helper_stand_ins)
_module_copies: weakref.WeakKeyDictionary[types.ModuleType, types.ModuleType] = weakref.WeakKeyDictionary()


def module_with_helper_stand_ins(module: types.ModuleType) -> types.ModuleType:
    """A workspace module as a slice reads it (`import mylib as ps`, then `ps.make(6)`): a copy of its
    namespace whose own plain Python functions are stand-ins, so that `mod.helper(...)` is typed as
    `helper(...)` is. Its other values are the module's own."""
    copy = _module_copies.get(module)
    if copy is None:
        copy = types.ModuleType(module.__name__, module.__doc__)
        for name, value in vars(module).items():
            own = inspect.isfunction(value) and value.__module__ == module.__name__  # not an import
            stand_in = python_helper_stand_in(value) if own else None
            setattr(copy, name, stand_in if stand_in is not None else value)
        _module_copies[module] = copy
    return copy


def python_helper_of(value: Any) -> Any | None:
    """The Python function a stand-in stands for (None for any other value)."""
    return value.py_func if isinstance(value, PythonHelper) else None
