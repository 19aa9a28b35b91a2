"""Decorator hooks (the loader's): Numba's decorators patched so workspace functions are recorded, with
their explicit signatures, instead of compiled; library functions keep Numba's behaviour exactly."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba

from pyserver.numba_api import dufunc_typing
from pyserver.numba_api.callees import current_callee_resolver


@dataclass
class Recorded:
    """One jitted function defined while a workspace module was executed."""

    py_func: Any
    dispatcher: Any  # a lazy Dispatcher (inference runs on it), also for cfunc/vectorize kernels
    kind: str
    signatures: list[Any]  # as written: strings, Signature objects, tuples
    options: dict[str, Any]
    exposed: Any = None  # what the decorator returned to the module


RecordHook = Callable[[Recorded], None]
_hooks: dict[str, Any] = {}


class LazyCFunc:
    """Stands in for a @cfunc with a signature: compiles (for real) only when the module uses it."""

    def __init__(self, original: Callable[..., Any], sig: Any, func: Any, kwargs: dict[str, Any]) -> None:
        self._original, self._sig, self._func, self._kwargs = original, sig, func, kwargs
        self._real: Any = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._real is None:
            self._real = self._original(self._sig, **self._kwargs)(self._func)
        return getattr(self._real, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__getattr__("__call__")(*args, **kwargs) if self._real else self._func(*args, **kwargs)


def _recording_dufunc_class() -> type:
    """A workspace @vectorize kernel's lazy DUFunc while its module loads (made once, on first use)."""
    global _RecordingDUFunc
    if _RecordingDUFunc is not None:
        return _RecordingDUFunc
    DUFunc: Any = importlib.import_module("numba.np.ufunc.dufunc").DUFunc
    sigutils: Any = importlib.import_module("numba.core.sigutils")

    internal = {DUFunc._type_me.__code__, DUFunc._compile_for_args.__code__}

    class RecordingDUFunc(DUFunc):
        """A loop its module asks for by its types (`kernel.add(sig)`, `_compile_for_argtys(types)`: a
        library's kernel factory) is a signature recorded for the analysis, not a compile. Once the kernel
        is used (a call, a jitted caller typed), the recorded loops compile first, as Numba compiled them
        when asked, so that it picks among them as Numba does (casting included); then what Numba does."""

        def _compile_for_argtys(self, argtys: tuple[Any, ...], return_type: Any = None) -> Any:
            if sys._getframe(1).f_code in internal:
                return DUFunc._compile_for_argtys(self, argtys, return_type)
            signature = tuple(argtys) if return_type is None else return_type(*argtys)
            self.__dict__["_lens_signatures"].append(signature)
            return None

        def _lens_compile_recorded(self) -> None:
            state = self.__dict__
            frozen, state["_lens_frozen"] = state.get("_lens_frozen", False), False  # compiles allowed here
            try:
                for signature in state["_lens_signatures"][state.get("_lens_compiled", 0) :]:
                    arguments, return_type = sigutils.normalize_signature(signature)
                    state["_lens_compiled"] = state.get("_lens_compiled", 0) + 1
                    if all(tuple(arguments) != key.args for key in self._dispatcher.overloads):
                        DUFunc._compile_for_argtys(self, tuple(arguments), return_type)
            finally:
                state["_lens_frozen"] = frozen

        def find_ewise_function(self, ewise_types: Any) -> Any:  # what typing a jitted caller asks
            if current_callee_resolver() is not None:  # the analysis: the loop Numba would pick, uncompiled
                state = self.__dict__
                found = dufunc_typing.ewise_signature(
                    self,
                    state["_lens_function"],
                    state["_lens_signatures"],
                    state.get("_lens_compiled", 0),
                    ewise_types,
                )
                return found, None
            self._lens_compile_recorded()  # a real compile (the views): the recorded loops compile first
            return DUFunc.find_ewise_function(self, ewise_types)

        def _compile_for_args(self, *args: Any, **kws: Any) -> Any:  # a call finding no loop
            self._lens_compile_recorded()
            try:
                return self.ufunc(*args, **kws)
            except TypeError:
                if self._frozen:
                    raise
            return DUFunc._compile_for_args(self, *args, **kws)

        # Frozen for Numba's typing (`_type_me` reads it), not for the C call: that would refuse a call
        # before the recorded loops compile.
        _frozen = property(
            lambda self: self.__dict__.get("_lens_frozen", False),
            lambda self, value: self.__dict__.update(_lens_frozen=bool(value)),
        )

    _RecordingDUFunc = RecordingDUFunc
    return RecordingDUFunc


_RecordingDUFunc: type | None = None


class _DeferredDisableCompile:
    """`disable_compile` of a dispatcher whose explicit signatures were recorded instead of compiled."""

    def __init__(self, dispatcher: Any) -> None:
        self.requested: bool | None = None
        self._dispatcher_name = getattr(dispatcher, "__name__", "")

    def __call__(self, val: bool = True) -> None:
        self.requested = bool(val)


def install_decorator_hooks(is_workspace_function: Callable[[Any], bool], on_record: RecordHook) -> None:
    """Patch Numba's decorators so workspace functions are recorded and nothing compiles eagerly.

    Functions outside the workspace (libraries) keep Numba's behaviour exactly.
    """
    if _hooks:
        _hooks["is_workspace_function"] = is_workspace_function
        _hooks["on_record"] = on_record
        return
    nb_decorators: Any = importlib.import_module("numba.core.decorators")
    nb_ufunc: Any = importlib.import_module("numba.np.ufunc")
    ufunc_decorators: Any = importlib.import_module("numba.np.ufunc.decorators")

    original_jit_factory = nb_decorators._jit
    _hooks.update(
        is_workspace_function=is_workspace_function,
        on_record=on_record,
        original_jit_factory=original_jit_factory,
    )
    original_cfunc = nb_decorators.cfunc
    original_vectorize = ufunc_decorators.vectorize
    original_guvectorize = ufunc_decorators.guvectorize

    def lens_jit_factory(sigs, locals, target, cache, targetoptions, **dispatcher_args):  # type: ignore[no-untyped-def]
        lazy = original_jit_factory(None, locals, target, False, targetoptions, **dispatcher_args)
        eager = original_jit_factory(sigs, locals, target, cache, targetoptions, **dispatcher_args)

        def wrapper(func: Any) -> Any:
            if target != "cpu" or not _hooks["is_workspace_function"](func):
                return eager(func)
            dispatcher = lazy(func)
            if sigs:
                # Its signatures are recorded, not compiled: `f.disable_compile()` after the decorator (which
                # asserts a compiled signature) is remembered, not applied, so the analysis can still
                # compile the recorded signatures.
                dispatcher.disable_compile = _DeferredDisableCompile(dispatcher)
                dispatcher._lens_declared = list(sigs)  # its function type when passed as a value (patches)
            options = dict(targetoptions)
            options["cache"] = cache
            kind = "jit"
            _hooks["on_record"](Recorded(func, dispatcher, kind, list(sigs or []), options, dispatcher))
            return dispatcher

        return wrapper

    def lens_cfunc(sig, locals=None, cache=False, pipeline_class=None, **options):  # type: ignore[no-untyped-def]
        kwargs = dict(options, locals=locals or {}, cache=cache)
        if pipeline_class is not None:
            kwargs["pipeline_class"] = pipeline_class

        def wrapper(func: Any) -> Any:
            if not _hooks["is_workspace_function"](func):
                return original_cfunc(sig, **kwargs)(func)
            njit_options = {
                k: v for k, v in options.items() if k in ("fastmath", "boundscheck", "debug", "nogil")
            }
            dispatcher = original_jit_factory(
                None, dict(locals or {}), "cpu", False, {"nopython": True, **njit_options}
            )(func)
            exposed = LazyCFunc(original_cfunc, sig, func, kwargs)
            _hooks["on_record"](
                Recorded(func, dispatcher, "cfunc", [sig], dict(options, cache=cache), exposed)
            )
            return exposed

        return wrapper

    def lens_vectorize(ftylist_or_function=(), **kws):  # type: ignore[no-untyped-def]
        if callable(ftylist_or_function) and not isinstance(ftylist_or_function, str):
            return lens_vectorize((), **kws)(
                ftylist_or_function
            )  # bare @vectorize: a lazy DUFunc, recorded too
        sigs = (
            [ftylist_or_function] if isinstance(ftylist_or_function, str) else list(ftylist_or_function or [])
        )

        def wrapper(func: Any) -> Any:
            if not _hooks["is_workspace_function"](func):
                return original_vectorize(ftylist_or_function, **kws)(func)
            dispatcher = original_jit_factory(None, {}, "cpu", False, {"nopython": True})(func)
            cpu_kws = {k: v for k, v in kws.items() if k not in ("target", "cache")}
            signatures = list(sigs)
            try:
                exposed = original_vectorize(**cpu_kws)(func)  # a lazy DUFunc
            except Exception:
                exposed = func
            else:
                exposed.__class__ = _recording_dufunc_class()
                exposed.__dict__["_lens_signatures"] = signatures  # the Recorded's: loops asked for later
                exposed.__dict__["_lens_function"] = dispatcher  # what the analysis types its loops by
                # with signatures Numba's kernel has those loops only, frozen: none other compiles
                exposed._frozen = bool(sigs)
            _hooks["on_record"](Recorded(func, dispatcher, "vectorize", signatures, dict(kws), exposed))
            return exposed

        return wrapper

    def lens_guvectorize(*args, **kwargs):  # type: ignore[no-untyped-def]
        if len(args) == 2:
            sigs, layout = args
            sigs = [sigs] if isinstance(sigs, str) else list(sigs)
        else:
            sigs, layout = [], args[0] if args else kwargs.get("signature")

        def wrapper(func: Any) -> Any:
            if not _hooks["is_workspace_function"](func):
                return original_guvectorize(*args, **kwargs)(func)
            dispatcher = original_jit_factory(None, {}, "cpu", False, {"nopython": True})(func)
            cpu_kwargs = {k: v for k, v in kwargs.items() if k not in ("target", "cache")}
            try:
                exposed = original_guvectorize(layout, **cpu_kwargs)(func)  # dynamic gufunc
            except Exception:
                exposed = func
            options = dict(kwargs, layout=layout)
            _hooks["on_record"](Recorded(func, dispatcher, "guvectorize", sigs, options, exposed))
            return exposed

        return wrapper

    nb_decorators._jit = lens_jit_factory
    nb_decorators.cfunc = lens_cfunc
    numba_module: Any = numba
    numba_module.cfunc = lens_cfunc
    for module in (numba_module, nb_ufunc, ufunc_decorators):
        module.vectorize = lens_vectorize
        module.guvectorize = lens_guvectorize


def current_record_hooks() -> tuple[Callable[[Any], bool], RecordHook] | None:
    """(is_workspace_function, on_record) of the installed hooks, for other targets' decorators."""
    if not _hooks:
        return None
    return _hooks["is_workspace_function"], _hooks["on_record"]


def original_jit_factory() -> Any:
    """Numba's own `_jit` factory (before the hooks replaced it, when they did)."""
    nb_decorators: Any = importlib.import_module("numba.core.decorators")
    return _hooks.get("original_jit_factory", nb_decorators._jit)
