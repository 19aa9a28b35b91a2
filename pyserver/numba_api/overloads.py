"""@overload implementations as the analysis sees them: the argument types Numba's typing passed to each
typing function in this process (captured once `install_overload_capture()` ran), and plain nopython
dispatchers for functions that only a recorded run or an overload made jitted."""

from __future__ import annotations

from typing import Any

from numba.core.registry import CPUDispatcher

from pyserver.caches import BoundedCache, bounded_cache

MAX_OVERLOAD_CALLS = 32  # per typing function: the distinct argument types kept

# (file, qualname) of a typing function -> the argument types Numba's typing passed to it
_overload_calls: BoundedCache[tuple[str, str], list[tuple[Any, ...]]] = bounded_cache(
    "numba_api.overload_calls", 4096
)


def install_overload_capture() -> None:
    """Remember the argument types of every call Numba's typing resolves to an @overload (or
    @overload_method) implementation, so the analysis of a jitted caller gives the implementation types."""
    from numba.core.typing import templates

    template: Any = getattr(templates, "_OverloadFunctionTemplate", None)
    if template is None or not hasattr(template, "_build_impl"):
        return  # another Numba: implementations are typed from recorded runs only
    if getattr(template._build_impl, "_numba_lens_capture", False):
        return
    original = template._build_impl

    def build_impl(self: Any, cache_key: Any, args: Any, kws: Any) -> Any:
        typing_function: Any = getattr(self, "_overload_func", None)
        code = getattr(typing_function, "__code__", None)
        if code is not None and _library_file(code.co_filename):
            # @register_jitable: Numba's own typing function returns the workspace function itself,
            # which is what compiles: its calls are kept under that function
            typing_function = getattr(self, "key", None)
            code = getattr(typing_function, "__code__", None)
        if code is not None and not kws and not _library_file(code.co_filename):
            key = (code.co_filename, str(typing_function.__qualname__))
            calls = _overload_calls.get(key)
            if calls is None:
                calls = _overload_calls[key] = []
            if tuple(args) not in calls and len(calls) < MAX_OVERLOAD_CALLS:
                calls.append(tuple(args))
        return original(self, cache_key, args, kws)

    build_impl._numba_lens_capture = True  # type: ignore[attr-defined]
    template._build_impl = build_impl


def overload_calls(filename: str, qualname: str) -> list[tuple[Any, ...]]:
    """The argument types typing passed to this typing function so far (oldest first)."""
    return list(_overload_calls.get((filename, qualname)) or [])


def _library_file(filename: str) -> bool:
    """Numba's own overloads and installed libraries: never a workspace implementation."""
    return filename.startswith("<") or any(part in filename for part in ("site-packages", "dist-packages"))


def nopython_dispatcher(py_func: Any) -> Any:
    """A lazy nopython dispatcher of a plain function (nothing compiles until something asks)."""
    return CPUDispatcher(py_func, targetoptions={"nopython": True})


def overload_call_types(recorded: tuple[Any, ...]) -> tuple[Any, ...]:
    """The argument types a call site passed, from those an implementation compiled for: an omitted
    argument was not passed (the typing function sees its Python default), a trailing `*args` tuple
    was passed as its items."""
    from numba.core import types as nbtypes

    call = [a for a in recorded if not isinstance(a, nbtypes.Omitted)]
    if call and isinstance(call[-1], nbtypes.StarArgTuple):
        call = [*call[:-1], *call[-1].types]
    return tuple(call)


def implementation_signature(dispatcher: Any, call_types: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The signature Numba compiles an @overload implementation for at a call with these types: folded
    through the implementation's own parameters (defaults as Omitted, `*args` as one tuple), as
    `_OverloadFunctionTemplate` does through the implementation's dispatcher; None when they do not fit."""
    try:
        _pysig, folded = dispatcher._compiler.fold_argument_types(call_types, {})
    except Exception:  # the implementation's parameters do not take these arguments: Numba would fail too
        return None
    return tuple(folded)
