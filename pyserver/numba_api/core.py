"""The core of the numba_api fence (see the package's docstring): decorator hooks that record explicit
signatures instead of compiling them, type inference only (with the typed passes up to ParforPass for
parallel=True), typing of calls to workspace jitted functions through the same inference, and the
version shims.
"""

from __future__ import annotations

import dis
import importlib
import inspect
import re
import time
import types as pytypes
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numba
import numpy as np
from numba.core import compiler, errors, ir, ir_utils, postproc, transforms, typeinfer, typing
from numba.core import types as nbtypes
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import AnalysisPass, FunctionPass, PassManager, register_pass
from numba.core.dispatcher import _DispatcherBase
from numba.core.registry import cpu_target
from numba.core.typed_passes import (
    InlineOverloads,
    NopythonRewrites,
    ParforPass,
    PreLowerStripPhis,
    PreParforPass,
)
from numba.core.typing.context import BaseContext
from numba.core.typing.templates import _EmptyImplementationEntry, _OverloadFunctionTemplate

if TYPE_CHECKING:
    from pyserver.numba_api.parfors import ParforFact

NUMBA_VERSION = numba.__version__
NUMBA_VERSION_TUPLE = tuple(int(p) for p in re.findall(r"\d+", NUMBA_VERSION)[:2])
Type = nbtypes.Type

# --- version shims: every difference between the supported Numba releases (pyserver/versions.py) ---
# An unsupported bytecode raises UnsupportedBytecodeError from 0.61 on, UnsupportedError before that
# (0.59 and 0.60 have no such name); both are the diagnostic code `unsupported`.
UNSUPPORTED_ERRORS: tuple[type[BaseException], ...] = tuple(
    cls
    for cls in (errors.UnsupportedError, getattr(errors, "UnsupportedBytecodeError", None))
    if cls is not None
)
# --- end of version shims ---


def refresh_contexts() -> None:
    """Load the typing registries once (else globals such as `range` are untyped)."""
    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()


def warm_up() -> None:
    """Type common NumPy operations once, so the first analysis a user waits for does not pay for it.

    Inference only (no LLVM): the typing registries load and the usual array operations get typed.
    """
    refresh_contexts()

    def _warm(a, b, n):  # pragma: no cover - executed through Numba
        total = 0.0
        for i in range(n):
            total += a[i] * 2.0
        out = np.empty_like(a)
        out2 = np.zeros_like(a)
        grid = np.zeros((n, n))
        ones = np.ones(n)
        empty = np.empty(n, dtype=np.float64)
        steps = np.arange(n)
        stats = a.sum() + a.min() + a.max() + a.mean() + np.sum(b) + b.sum()
        shaped = b.shape[0] + b.T.shape[1] + a.size + len(a)
        maths = np.sqrt(a) + np.exp(a) + np.abs(a) + np.log(a + 1.0)
        copied = a.copy()
        return total, out, out2, grid, ones, empty, steps, stats, shaped, maths, copied, np.dot(a, a)

    def _no_workspace_callees(dispatcher: Any, args: tuple[Any, ...]) -> Any:
        raise CalleeTypingError("warm-up has no workspace callees", dispatcher, args)

    dispatcher = numba.njit(_warm)
    with callee_resolver(_no_workspace_callees):
        infer(dispatcher, (nbtypes.float64[:], nbtypes.float64[:, :], nbtypes.int64), None)


def unliteral(ty: Any) -> Any:
    return nbtypes.unliteral(ty)


def is_literal(ty: Any) -> bool:
    return isinstance(ty, nbtypes.Literal)


# --------------------------------------------------------------------------------------------------
# Decorator hooks (the loader)


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
            try:
                exposed = original_vectorize(**cpu_kws)(func)  # a lazy DUFunc
            except Exception:
                exposed = func
            _hooks["on_record"](Recorded(func, dispatcher, "vectorize", sigs, dict(kws), exposed))
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


def function_id(py_func: Any) -> tuple[str, str]:
    return (py_func.__code__.co_filename, py_func.__qualname__)


def dispatcher_py_func(dispatcher: Any) -> Any:
    return dispatcher.py_func


def dispatcher_options(dispatcher: Any) -> dict[str, Any]:
    return dict(dispatcher.targetoptions)


def jitclass_methods(obj: Any) -> dict[str, Any] | None:
    """For a @jitclass class: {method name: (py_func, instance type)}; None for anything else."""
    class_type = getattr(obj, "class_type", None)
    if class_type is None or not hasattr(class_type, "jit_methods"):
        return None
    return {
        name: (dispatcher.py_func, class_type.instance_type)
        for name, dispatcher in class_type.jit_methods.items()
    }


# --------------------------------------------------------------------------------------------------
# Typing calls to workspace functions without compiling them


class CalleeTypingError(errors.TypingError):
    """A workspace callee failed inference for the argument types a caller passes."""

    def __init__(self, message: str, callee: Any, args: tuple[Any, ...]) -> None:
        # Numba re-wraps typing errors as new TypingErrors with the text only (no __cause__ outside
        # developer mode), so the callee travels as a marker in the text.
        number = len(_callee_failures)
        _callee_failures[number] = (function_id(callee.py_func), args)
        super().__init__(f"{message} [numba-lens-callee:{number}]")
        self.callee = callee
        self.callee_args = args


_callee_failures: dict[int, tuple[tuple[str, str], tuple[Any, ...]]] = {}
_CALLEE_MARKER = re.compile(r" \[numba-lens-callee:(\d+)\]")


# The signatures a call to this workspace callee may resolve to, as (argument types, return type) pairs:
# the callee's declared signatures, or one inferred for the caller's argument types. Raises
# CalleeTypingError when the callee cannot be typed.
CalleeResolver = Callable[[Any, tuple[Any, ...]], list[tuple[tuple[Any, ...], Any]]]
_callee_resolver: list[CalleeResolver | None] = [None]
_original_get_call_template = _DispatcherBase.get_call_template


def _lens_get_call_template(self: Any, args: Any, kws: Any) -> Any:
    resolver = _callee_resolver[0]
    if resolver is None or type(self).__name__ in _LIFTED_DISPATCHERS:
        return _original_get_call_template(self, args, kws)
    pysig, folded = self._compiler.fold_argument_types(args, kws)
    folded = tuple(folded)
    if getattr(self, "_numba_lens_workspace", False):
        pairs = resolver(self, folded)
    else:
        return_type = _library_return_type(self, folded)
        if return_type is None:
            # Type-only inference could not decide: Numba's own compile does, exactly as it would.
            with callee_resolver_disabled():
                return _original_get_call_template(self, args, kws)
        pairs = [(folded, return_type)]
    name = f"CallTemplate({self.py_func.__name__})"
    signatures = [typing.signature(return_type, *pair_args) for pair_args, return_type in pairs]
    # Numba's own overload resolution picks among them (conversions, "no matching definition").
    template = typing.make_concrete_template(name, key=self.py_func.__name__, signatures=signatures)
    return template, pysig, folded, {}


# Library functions (overload implementations, jitted helpers of other packages) are typed by the same
# inference instead of an LLVM compile: the first typing of e.g. np.empty_like in a process otherwise
# costs a full compile. Only successes are remembered; a failure falls back to Numba's own compile.
_LIFTED_DISPATCHERS = {"LiftedLoop", "LiftedWith", "ObjModeLiftedWith"}
_library_types: dict[tuple[Any, tuple[Any, ...]], Any] = {}


def _library_return_type(dispatcher: Any, args: tuple[Any, ...]) -> Any | None:
    key = (dispatcher, args)
    if key in _library_types:
        return _library_types[key]
    existing = dispatcher.overloads.get(args)
    if existing is not None:
        return existing.signature.return_type
    try:
        inference = infer(dispatcher, args, None)
    except Exception:
        return None
    if inference.errors or inference.return_type is None:
        return None
    _library_types[key] = inference.return_type
    return inference.return_type


def _lens_get_overload(self: Any, sig: Any) -> Any:
    try:
        return _original_get_overload(self, sig)
    except KeyError:
        if _callee_resolver[0] is None:
            raise
        # Typed, not compiled: analysis never lowers, and a later real compile replaces this entry.
        return _EmptyImplementationEntry("numba-lens: typed only, not compiled")


def _lens_get_impl_key(self: Any, sig: Any) -> Any:
    try:
        return _original_get_impl_key(self, sig)
    except KeyError:
        if _callee_resolver[0] is None:
            raise
        return _EmptyImplementationEntry("numba-lens: typed only, not compiled")


# Typing a call to a builtin, an operator or a method gives the same signature for the same argument
# types in every function: remember successes across functions and runs (analysis only; a failure is
# always recomputed, so errors stay exactly Numba's).
_resolutions: dict[tuple[Any, ...], Any] = {}
_original_resolve_function_type = BaseContext.resolve_function_type


def _lens_resolve_function_type(self: Any, func: Any, args: Any, kws: Any) -> Any:
    if _callee_resolver[0] is None or not isinstance(func, nbtypes.Function | nbtypes.BoundFunction):
        return _original_resolve_function_type(self, func, args, kws)
    try:
        key = (func, tuple(args), tuple(sorted(kws.items())))
        hit = _resolutions.get(key)
    except TypeError:  # an unhashable argument type: no caching
        return _original_resolve_function_type(self, func, args, kws)
    if hit is not None:
        return hit
    signature = _original_resolve_function_type(self, func, args, kws)
    if signature is not None:
        _resolutions[key] = signature
    return signature


BaseContext.resolve_function_type = _lens_resolve_function_type  # type: ignore[method-assign]


_original_get_overload = _DispatcherBase.get_overload
_original_get_impl_key = _OverloadFunctionTemplate.get_impl_key
_DispatcherBase.get_overload = _lens_get_overload  # type: ignore[method-assign]
_OverloadFunctionTemplate.get_impl_key = _lens_get_impl_key  # type: ignore[method-assign]


_DispatcherBase.get_call_template = _lens_get_call_template  # type: ignore[method-assign]


def mark_workspace_dispatcher(dispatcher: Any) -> None:
    """Calls to this dispatcher are typed by inference (the resolver), never by compiling it."""
    try:
        dispatcher._numba_lens_workspace = True
    except AttributeError:
        pass


def is_workspace_dispatcher(value: Any) -> bool:
    """A dispatcher of a workspace function (marked by mark_workspace_dispatcher)."""
    return bool(getattr(value, "_numba_lens_workspace", False))


# Numba's IR passes list each statement's variables again and again (use-def maps, liveness): its
# recursive walker tests every attribute value against four classes. The same walk, in the same order,
# with each class's kind looked up once: the same lists, about 0.5 ms less per inference.
_LIST_VARS_KINDS: dict[type, int] = {}
_LEAF, _VAR, _INST, _SEQUENCE, _MAPPING = range(5)


def _list_vars_kind(cls: type) -> int:
    if issubclass(cls, ir.Var):
        kind = _VAR
    elif issubclass(cls, ir.Inst):
        kind = _INST
    elif issubclass(cls, list | tuple):
        kind = _SEQUENCE
    elif issubclass(cls, dict):
        kind = _MAPPING
    else:
        kind = _LEAF
    _LIST_VARS_KINDS[cls] = kind
    return kind


def _gather_vars(value: Any, out: list[Any]) -> None:
    kind = _LIST_VARS_KINDS.get(type(value))
    if kind is None:
        kind = _list_vars_kind(type(value))
    if kind == _VAR:
        out.append(value)
    elif kind == _INST:
        out.extend(value.list_vars())
    elif kind == _SEQUENCE:
        for item in value:
            _gather_vars(item, out)
    elif kind == _MAPPING:
        for item in value.values():
            _gather_vars(item, out)


def _rec_list_vars(self: Any, value: Any) -> list[Any]:
    out: list[Any] = []
    _gather_vars(value, out)
    return out


ir.Inst._rec_list_vars = _rec_list_vars  # type: ignore[method-assign]


def typed_only_by_resolver(value: Any) -> bool:
    """A workspace dispatcher that a caller's typing sees only through the callee resolver's answers
    (argument types -> return type): never inlined into the caller, not a lifted loop. What else of it
    the caller's typing reads (its parameters and defaults, which fold the call's arguments) is in
    `resolver_token`."""
    if not is_workspace_dispatcher(value) or not isinstance(value, _DispatcherBase):
        return False
    if type(value).__name__ in _LIFTED_DISPATCHERS:
        return False
    return dict(getattr(value, "targetoptions", {}) or {}).get("inline", "never") == "never"


def resolver_token(dispatcher: Any) -> str:
    """What a caller's typing reads of a dispatcher besides the resolver's answers: its name, options
    and parameters (the folding of keyword and omitted arguments)."""
    py_func = dispatcher.py_func
    options = sorted((k, repr(v)) for k, v in dict(dispatcher.targetoptions).items())
    try:
        parameters = str(inspect.signature(py_func))
    except (TypeError, ValueError):
        parameters = "?"
    return f"{py_func.__module__}.{py_func.__qualname__}{parameters}{options}"


@contextmanager
def callee_resolver_disabled() -> Iterator[None]:
    previous = _callee_resolver[0]
    _callee_resolver[0] = None
    try:
        yield
    finally:
        _callee_resolver[0] = previous


@contextmanager
def callee_resolver(resolver: CalleeResolver) -> Iterator[None]:
    previous = _callee_resolver[0]
    _callee_resolver[0] = resolver
    try:
        yield
    finally:
        _callee_resolver[0] = previous


# --------------------------------------------------------------------------------------------------
# Inference


@dataclass
class ErrorInfo:
    kind: str  # "typing" | "unsupported" | "unify" | "untyped" | "other"
    text: str  # Numba's full text, highlighting off
    line: int | None  # 1-based, when Numba knows it and it is in the function's file
    filename: str | None
    callee: tuple[str, str] | None = None  # for a CalleeTypingError: the callee's (file, qualname)
    callee_args: tuple[Any, ...] | None = None
    # For an untyped empty list: the element type its other uses give it (Numba's text), when known.
    element_type: str | None = None


@dataclass
class WarningInfo:
    category: str  # "performance" | "deprecation" | "other"
    text: str
    line: int | None
    filename: str | None = None


@dataclass
class VariableInfo:
    name: str
    ssa_name: str
    type: Any
    line: int
    is_arg: bool
    used_lines: list[int] = field(default_factory=list)  # 1-based lines of the statements reading it
    phi: bool = False


# SSA versions are `x`, `x.1`, and for a re-versioned one `x.1.2`: the source name is what precedes them.
_SSA_SUFFIX = re.compile(r"(\.\d+)+$")


def source_name(ssa_name: str) -> str:
    return _SSA_SUFFIX.sub("", ssa_name)


def _read_vars(stmt: Any) -> list[Any]:
    """The variables a statement reads. A phi is not a read: it merges versions at a join, and the
    statement that then uses the merged version is the read."""
    if isinstance(stmt, ir.Assign):
        value = stmt.value
        if isinstance(value, ir.Var):
            return [value]
        if isinstance(value, ir.Expr):
            return [] if value.op == "phi" else list(value.list_vars())
        return []  # arg, const, global, freevar
    if isinstance(stmt, ir.Del):
        return []
    return list(stmt.list_vars())


@dataclass
class CallInfo:
    callee: tuple[str, str]  # a workspace function: (file, qualname)
    args: tuple[Any, ...]
    line: int


@dataclass
class ReturnSite:
    line: int
    type: Any | None


@dataclass
class Inference:
    args: tuple[Any, ...]
    return_type: Any | None = None
    errors: list[ErrorInfo] = field(default_factory=list)
    warnings: list[WarningInfo] = field(default_factory=list)
    variables: list[VariableInfo] = field(default_factory=list)
    calls: list[CallInfo] = field(default_factory=list)
    returns: list[ReturnSite] = field(default_factory=list)
    call_types: list[tuple[int, str, str]] = field(default_factory=list)  # (line, what is called, signature)
    elapsed_ms: float = 0.0
    list_element: Any | None = None  # see callee_list_element (only for that probe)
    parallel: list[ParforFact] | None = None  # parallel=True only: what the parfor pass made of the loops


class _Done:
    """Stands in for a compile result: ends the pipeline before lowering (Numba needs state.cr set)."""


def _collect(state: Any) -> Inference:
    result: Inference = state.lens_result
    func_ir = state.func_ir
    typemap = state.typemap or {}
    calltypes = state.calltypes or {}
    arg_names = set(func_ir.arg_names)
    def_line = func_ir.loc.line
    code = getattr(state.func_id, "code", None)
    if code is not None:
        def_line = code.co_firstlineno
    seen: set[str] = set()
    casts: dict[str, str] = {}
    reads: dict[str, set[int]] = {}
    for block in func_ir.blocks.values():
        for stmt in block.body:
            line = stmt.loc.line if stmt.loc is not None else None
            if line:
                for var in _read_vars(stmt):
                    reads.setdefault(var.name, set()).add(int(line))
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign):
                name = stmt.target.name
                if isinstance(stmt.value, ir.Expr) and stmt.value.op == "cast":
                    casts[name] = stmt.value.value.name
                if name.startswith("$") or "closure__locals__" in name or name in seen:
                    continue
                seen.add(name)
                ty = typemap.get(name)
                if ty is None:
                    continue
                is_arg = isinstance(stmt.value, ir.Arg)
                line = def_line if is_arg else stmt.loc.line
                is_phi = isinstance(stmt.value, ir.Expr) and stmt.value.op == "phi"
                result.variables.append(
                    VariableInfo(
                        source_name(name),
                        name,
                        ty,
                        line,
                        is_arg or name in arg_names,
                        sorted(reads.get(name, ())),
                        is_phi,
                    )
                )
            elif isinstance(stmt, ir.Return):
                value = casts.get(stmt.value.name, stmt.value.name)
                result.returns.append(ReturnSite(stmt.loc.line, typemap.get(value)))
    for expr, sig in calltypes.items():
        if not isinstance(expr, ir.Expr) or sig is None:
            continue
        line = expr.loc.line if expr.loc is not None else 0
        if expr.op not in ("getiter", "iternext", "exhaust_iter"):  # loop plumbing: not the user's calls
            text = "(" + ", ".join(str(a) for a in sig.args) + f") -> {sig.return_type}"
            result.call_types.append((int(line or 0), _call_name(expr, typemap), text))
        if expr.op != "call":
            continue
        fnty = typemap.get(expr.func.name)
        dispatcher = getattr(fnty, "dispatcher", None)
        if dispatcher is not None and getattr(dispatcher, "_numba_lens_workspace", False):
            result.calls.append(CallInfo(function_id(dispatcher.py_func), tuple(sig.args), expr.loc.line))
    return result


def _call_name(expr: Any, typemap: dict[str, Any]) -> str:
    """What a typed call or operator expression calls, for people: "add", "len", "np.empty_like", "walk"."""
    if expr.op in ("binop", "inplace_binop", "unary"):
        fn = getattr(expr, "fn", None)
        return str(getattr(fn, "__name__", fn))
    if expr.op in ("getitem", "static_getitem", "setitem", "static_setitem", "getiter", "iternext"):
        return str(expr.op)
    if expr.op == "call":
        fnty = typemap.get(expr.func.name)
        dispatcher = getattr(fnty, "dispatcher", None)
        if dispatcher is not None:
            return str(dispatcher.py_func.__qualname__)
        typing_key = getattr(fnty, "typing_key", None)
        name = getattr(typing_key, "__name__", None)
        if isinstance(fnty, nbtypes.BoundFunction):
            key = fnty.typing_key
            return str(key[-1] if isinstance(key, tuple) else key).rsplit(".", 1)[-1]
        return str(name) if name else str(fnty)
    return str(expr.op)


def _error_info(exc: BaseException, filename: str) -> ErrorInfo:
    callee = None
    callee_args = None
    text = str(exc)
    marker = _CALLEE_MARKER.search(text)
    if marker is not None:
        found = _callee_failures.get(int(marker.group(1)))
        if found is not None:
            callee, callee_args = found
        text = _CALLEE_MARKER.sub("", text)
    loc = getattr(exc, "loc", None)
    line = None
    if loc is not None and getattr(loc, "filename", None) == filename and loc.line:
        line = int(loc.line)
    if isinstance(exc, UNSUPPORTED_ERRORS):
        kind = "unsupported"
    elif "Can't unify return type" in text or "Cannot unify" in text:
        kind = "unify"
    elif "Cannot infer the type of variable" in text or "cannot be determined" in text:
        kind = "untyped"
    elif isinstance(exc, errors.TypingError):
        kind = "typing"
    else:
        kind = "other"
    return ErrorInfo(kind, text, line, filename, callee, callee_args)


# Numba's PostProcessor runs after most untyped passes (five or six times per function) and each time
# computes every block's live variables, which only object-mode lowering reads (`block_entry_vars`);
# the lifetimes themselves are computed lazily when a pass asks (loop or with lifting, literal_unroll).
# For the untyped passes of a function this pipeline types, that part is left out: the CFG is
# canonicalized and the lifetimes set up as Numba does. Only where nothing can lower that IR in object
# mode: no `with` block (objmode, with lifting), no generator, not parallel=True; dels are emitted as
# Numba does. About 1.4 ms less per inference; tests compare the inference with and without it.
LIGHT_POSTPROCESSING = [True]
_light_postprocessing: set[int] = set()  # id(func_id) of the functions in their untyped passes here
_original_postprocessor_run = postproc.PostProcessor.run
# The opcodes of a `with` block (they differ between Python versions).
WITH_OPCODES = frozenset(
    dis.opmap[name]
    for name in ("BEFORE_WITH", "SETUP_WITH", "BEFORE_ASYNC_WITH", "SETUP_ASYNC_WITH")
    if name in dis.opmap
)


def _lens_postprocessor_run(self: Any, *args: Any, **kwargs: Any) -> None:
    func_ir = self.func_ir
    emit_dels = bool(args[0] if args else kwargs.get("emit_dels", False))
    if (
        emit_dels
        or id(getattr(func_ir, "func_id", None)) not in _light_postprocessing
        or func_ir.is_generator
    ):
        _original_postprocessor_run(self, *args, **kwargs)
        return
    func_ir.blocks = transforms.canonicalize_cfg(func_ir.blocks)
    func_ir.variable_lifetime = postproc.VariableLifetime(func_ir.blocks)
    func_ir.generator_info = None


postproc.PostProcessor.run = _lens_postprocessor_run  # type: ignore[method-assign]


def nested_codes(code: Any) -> list[Any]:
    """A code object and those of the functions, lambdas and comprehensions defined in it."""
    found = [code]
    for current in found:
        found.extend(c for c in current.co_consts if isinstance(c, pytypes.CodeType))
    return found


def _has_with_block(code: Any) -> bool:
    # wordcode: (opcode, argument) pairs
    return any(WITH_OPCODES & set(current.co_code[0::2]) for current in nested_codes(code))


@register_pass(mutates_CFG=False, analysis_only=True)
class LensBeginUntyped(AnalysisPass):
    """Marks the function for the light post-processing of its untyped passes, where it applies. Runs
    before the IR exists (not a FunctionPass: Numba checks a FunctionPass's IR for dels)."""

    _name = "numba_lens_begin_untyped"

    def __init__(self) -> None:
        AnalysisPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        func_id = state.func_id
        if (
            LIGHT_POSTPROCESSING[0]
            and not func_id.is_generator
            and not state.flags.auto_parallel.enabled
            and not _has_with_block(func_id.code)
        ):
            _light_postprocessing.add(id(func_id))
        return False


@register_pass(mutates_CFG=True, analysis_only=False)
class LensTypeInference(FunctionPass):
    """Numba's type inference, keeping the partial typemap and every propagation error."""

    _name = "numba_lens_type_inference"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        _light_postprocessing.discard(id(state.func_id))  # typing may compile other functions: Numba's own
        result: Inference = state.lens_result
        filename = state.func_ir.loc.filename
        interp = state.func_ir
        fixer = errors.WarningsFixer(errors.NumbaWarning)  # type: ignore[attr-defined]
        infer = typeinfer.TypeInferer(state.typingctx, interp, fixer)
        callstack_ctx = state.typingctx.callstack.register(
            state.targetctx.target, infer, interp.func_id, state.args
        )
        typemap = calltypes = restype = None
        with callstack_ctx, infer.warnings:
            try:
                for index, (name, ty) in enumerate(zip(interp.arg_names, state.args, strict=False)):
                    infer.seed_argument(name, index, ty)
                if state.return_type is not None:
                    infer.seed_return(state.return_type)
                for name, ty in state.locals.items():
                    infer.seed_type(name, ty)
                infer.build_constraint()
                propagate_errors = infer.propagate(raise_errors=False) or []
                for exc in propagate_errors:
                    result.errors.append(_error_info(exc, filename))
                if not propagate_errors:
                    try:
                        typemap, restype, calltypes = infer.unify(raise_errors=True)
                    except errors.NumbaError as exc:
                        result.errors.append(_error_info(exc, filename))
                if typemap is None:
                    typemap, restype, calltypes = infer.unify(raise_errors=False)
            except errors.NumbaError as exc:
                result.errors.append(_error_info(exc, filename))
        state.typemap = typemap or {}
        state.calltypes = calltypes or {}
        from pyserver.numba_api.containers import _UNTYPED_NAME, untyped_list_element

        list_param = getattr(state, "lens_list_param", None)
        if list_param is not None:
            result.list_element = untyped_list_element(state.func_ir, state.typemap, list_param)
        for error in result.errors:
            if error.kind == "untyped":
                named = _UNTYPED_NAME.search(error.text)
                # Lists only ("imprecise type: list(undefined)"); an empty dict or set has no list idiom.
                is_list = re.search(r"imprecise type: (reflected )?list\(", error.text) is not None
                if named is not None and is_list and not named.group(1).startswith("$"):
                    element = untyped_list_element(state.func_ir, state.typemap, named.group(1))
                    error.element_type = None if element is None else str(element)
        if not result.errors:
            state.return_type = restype
            result.return_type = restype
        _collect(state)
        if not result.errors and typemap:
            try:
                ir_utils.raise_on_unsupported_feature(state.func_ir, state.typemap)
            except errors.NumbaError as exc:
                result.errors.append(_error_info(exc, filename))
            ir_utils.warn_deprecated(state.func_ir, state.typemap)
        if result.errors:
            # Stop here: the later passes need a complete typemap.
            raise compiler._EarlyPipelineCompletion(_Done())
        return True


@register_pass(mutates_CFG=False, analysis_only=True)
class LensFinish(FunctionPass):
    _name = "numba_lens_finish"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        state.cr = _Done()
        return False


class _LensPipeline(CompilerBase):
    """Untyped passes, partial type inference, and the parfor passes only for parallel=True."""

    def define_pipelines(self) -> list[PassManager]:
        untyped = DefaultPassBuilder.define_untyped_pipeline(self.state)
        # Named like Numba's own pipeline so messages read the same.
        pm = PassManager("nopython")
        pm.add_pass(LensBeginUntyped, "numba-lens: light post-processing of the untyped passes")
        for pass_class, description in untyped.passes:
            pm.add_pass(pass_class, description)
        pm.add_pass(LensTypeInference, "nopython frontend")
        if self.state.flags.auto_parallel.enabled:
            pm.add_pass(PreLowerStripPhis, "remove phis nodes")
            pm.add_pass(InlineOverloads, "inline overloaded functions")
            pm.add_pass(PreParforPass, "Preprocessing for parfors")
            if not self.state.flags.no_rewrites:
                pm.add_pass(NopythonRewrites, "nopython rewrites")
            pm.add_pass(ParforPass, "convert to parfors")
            from pyserver.numba_api.parfors import LensParforReport  # imports this module

            pm.add_pass(LensParforReport, "numba-lens: parfor fusion and report")
        pm.add_pass(LensFinish, "numba-lens: stop before lowering")
        pm.finalize()
        return [pm]


def _flags_for(dispatcher: Any) -> Any:
    flags = compiler.Flags()
    dispatcher.targetdescr.options.parse_as_flags(flags, dispatcher.targetoptions)
    return dispatcher._compiler._customize_flags(flags)


def _warning_info(record: warnings.WarningMessage) -> WarningInfo:
    message = record.message
    text = str(message)
    if isinstance(message, errors.NumbaPerformanceWarning):
        category = "performance"
    elif isinstance(message, errors.NumbaDeprecationWarning | errors.NumbaPendingDeprecationWarning):
        category = "deprecation"
    else:
        category = "other"
    loc = getattr(message, "loc", None)
    line = int(loc.line) if loc is not None and getattr(loc, "line", None) else None
    filename = getattr(loc, "filename", None) if loc is not None else record.filename
    return WarningInfo(category, text, line, filename)


def _names_this_function(text: str, py_func: Any) -> bool:
    """False for a warning about another function (e.g. an overload implementation compiled on the way)."""
    named = re.search(r"of function '([^']+)'", text)
    return named is None or named.group(1) in (py_func.__name__, py_func.__qualname__)


def infer(
    dispatcher: Any, args: tuple[Any, ...], return_type: Any | None, list_param: str | None = None
) -> Inference:
    """Front end + type inference of one function for one signature. Never compiles to LLVM.

    `list_param`: a parameter passed an untyped empty list; `.list_element` then says what the
    function puts in it (callee_list_element)."""
    started = time.perf_counter()
    result = Inference(args=args)
    py_func = dispatcher.py_func
    filename = py_func.__code__.co_filename
    flags = _flags_for(dispatcher)

    states: list[Any] = []

    class Pipeline(_LensPipeline):
        def __init__(self, *a: Any, **k: Any) -> None:
            super().__init__(*a, **k)
            self.state.lens_result = result
            self.state.lens_list_param = list_param
            states.append(self.state)

    with warnings.catch_warnings(record=True) as caught, dispatcher._compiling_counter:
        warnings.simplefilter("always")
        try:
            compiler.compile_extra(
                dispatcher.targetdescr.typing_context,
                dispatcher.targetdescr.target_context,
                py_func,
                args=args,
                return_type=return_type,
                flags=flags,
                locals=dispatcher.locals,
                pipeline_class=Pipeline,
            )
        except errors.NumbaError as exc:
            result.errors.append(_error_info(exc, filename))
        except Exception as exc:  # an internal error of Numba's passes on odd code: say so, never crash
            info = _error_info(exc, filename)
            info.text = f"{type(exc).__name__}: {exc}"
            result.errors.append(info)
        finally:
            for state in states:  # an untyped pass that raised left its mark
                _light_postprocessing.discard(id(state.func_id))
    # Warnings from library code compiled on the way (overload implementations) are not the user's.
    result.warnings = [
        info
        for info in (_warning_info(w) for w in caught if isinstance(w.message, errors.NumbaWarning))
        if info.filename in (None, filename) and _names_this_function(info.text, py_func)
    ]
    result.elapsed_ms = (time.perf_counter() - started) * 1000.0
    return result
