"""Type inference only: Numba's untyped pipeline, a partial type inference that keeps the typemap when
it fails, then (only for parallel=True) the typed passes up to ParforPass. Never compiles to LLVM."""

from __future__ import annotations

import functools
import inspect
import operator
import re
import time
import warnings
from contextlib import AbstractContextManager
from contextvars import ContextVar
from typing import Any

import numba
import numpy as np
from numba.core import compiler, errors, ir, ir_utils, typeinfer
from numba.core import types as nbtypes
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import AnalysisPass, FunctionPass, PassManager, register_pass
from numba.core.typed_passes import (
    InlineOverloads,
    NopythonRewrites,
    ParforPass,
    PreLowerStripPhis,
    PreParforPass,
)
from numba.core.untyped_passes import TranslateByteCode

from pyserver.numba_api.callees import CalleeTypingError, callee_of_message, callee_resolver
from pyserver.numba_api.containers import UNTYPED_NAME, untyped_list_element
from pyserver.numba_api.core import (
    UNSUPPORTED_ERRORS,
    WITH_OPCODES,
    function_id,
    nested_codes,
    refresh_contexts,
    switched_off,
)
from pyserver.numba_api.dufunc_typing import kernel_loop_of_call
from pyserver.numba_api.inference_model import (
    CallInfo,
    ErrorInfo,
    Inference,
    ReturnSite,
    WarningInfo,
)
from pyserver.numba_api.parfors import LensParforReport
from pyserver.numba_api.translate_memo import LensTranslateByteCode
from pyserver.numba_api.typed_ir import typed_variables


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
    casts: dict[str, str] = {}
    filename = code.co_filename if code is not None else None
    result.variables.extend(
        typed_variables(func_ir.blocks.values(), typemap, def_line, arg_names, filename=filename)
    )
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign):
                if isinstance(stmt.value, ir.Expr) and stmt.value.op == "cast":
                    casts[stmt.target.name] = stmt.value.value.name
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
        args = tuple(sig.args)
        if dispatcher is None:
            dispatcher, args = _jitclass_method_call(fnty, sig)
        if dispatcher is None:
            dispatcher, args = kernel_loop_of_call(fnty, sig)
        if dispatcher is not None and getattr(dispatcher, "_numba_lens_workspace", False):
            result.calls.append(CallInfo(function_id(dispatcher.py_func), args, expr.loc.line))
    for block in func_ir.blocks.values():
        for stmt in block.body:  # a jitclass property read calls its getter with the instance
            read = stmt.value if isinstance(stmt, ir.Assign) else None
            if isinstance(read, ir.Expr) and read.op == "getattr":
                instance = typemap.get(read.value.name)
                if isinstance(instance, nbtypes.ClassInstanceType) and read.attr in instance.jit_props:
                    getter = instance.jit_props[read.attr].get("get")
                    if getter is not None and getattr(getter, "_numba_lens_workspace", False):
                        result.calls.append(CallInfo(function_id(getter.py_func), (instance,), stmt.loc.line))
    return result


def _jitclass_method_call(fnty: Any, sig: Any) -> tuple[Any, tuple[Any, ...]]:
    """The dispatcher and argument types of a call of a jitclass's method or static method on an
    instance (`self.step(x)`): the method's dispatcher takes the instance first, a static one does not;
    a constructor call (`Bag(n)`) calls __init__ with the instance first."""
    if isinstance(fnty, nbtypes.ClassType) and "__init__" in fnty.jit_methods:
        return fnty.jit_methods["__init__"], (fnty.instance_type.get_reference_type(), *sig.args)
    if not isinstance(fnty, nbtypes.BoundFunction) or not isinstance(fnty.this, nbtypes.ClassInstanceType):
        return None, ()
    key = fnty.typing_key
    attr = key[1] if isinstance(key, tuple) and len(key) == 2 else None
    instance = fnty.this
    if attr in instance.jit_methods and sig.recvr is not None:
        return instance.jit_methods[attr], (sig.recvr, *sig.args)
    if attr in instance.jit_static_methods:
        return instance.jit_static_methods[attr], tuple(sig.args)
    return None, ()


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


def error_info(exc: BaseException, filename: str) -> ErrorInfo:
    """What Numba raised, as the analysis reports it (its kind, text without markers, line in `filename`)."""
    text, callee, callee_args = callee_of_message(str(exc))
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
_light_postprocessing_enabled = [True]  # off only to compare with Numba's own (tests)
_light_postprocessing: set[int] = set()  # id(func_id) of the functions in their untyped passes here


def uses_light_postprocessing(func_id: Any) -> bool:
    """Is this function (a FunctionIdentity) in the untyped passes of this pipeline, with the light
    post-processing (patches.install() replaces Numba's PostProcessor.run by one that asks)?"""
    return id(func_id) in _light_postprocessing


def light_postprocessing_disabled() -> AbstractContextManager[None]:
    """Numba's own post-processing for every function inferred inside (to compare the two)."""
    return switched_off(_light_postprocessing_enabled)


def has_with_block(code: Any) -> bool:
    """Does this code, or one nested in it, have a `with` block?"""
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
            _light_postprocessing_enabled[0]
            and not func_id.is_generator
            and not state.flags.auto_parallel.enabled
            and not has_with_block(func_id.code)
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
                force_literal = [e for e in propagate_errors if isinstance(e, errors.ForceLiteralArg)]
                if force_literal:  # a callee asks for literal arguments: as TypeInferer.propagate does
                    raise functools.reduce(operator.or_, force_literal)
                for exc in propagate_errors:
                    result.errors.append(error_info(exc, filename))
                if not propagate_errors:
                    try:
                        typemap, restype, calltypes = infer.unify(raise_errors=True)
                    except errors.NumbaError as exc:
                        result.errors.append(error_info(exc, filename))
                if typemap is None:
                    typemap, restype, calltypes = infer.unify(raise_errors=False)
            except errors.ForceLiteralArg:
                raise  # to the dispatcher's retry (infer)
            except errors.NumbaError as exc:
                result.errors.append(error_info(exc, filename))
        state.typemap = typemap or {}
        state.calltypes = calltypes or {}
        list_param = getattr(state, "lens_list_param", None)
        if list_param is not None:
            result.list_element = untyped_list_element(
                state.func_ir, state.typemap, list_param, callee_list_element
            )
        for error in result.errors:
            if error.kind == "untyped":
                named = UNTYPED_NAME.search(error.text)
                # Lists only ("imprecise type: list(undefined)"); an empty dict or set has no list idiom.
                is_list = re.search(r"imprecise type: (reflected )?list\(", error.text) is not None
                if named is not None and is_list and not named.group(1).startswith("$"):
                    element = untyped_list_element(
                        state.func_ir, state.typemap, named.group(1), callee_list_element
                    )
                    error.element_type = None if element is None else str(element)
        if not result.errors:
            state.return_type = restype
            result.return_type = restype
        _collect(state)
        if not result.errors and typemap:
            try:
                ir_utils.raise_on_unsupported_feature(state.func_ir, state.typemap)
            except errors.NumbaError as exc:
                result.errors.append(error_info(exc, filename))
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
            if pass_class is TranslateByteCode:
                pass_class = LensTranslateByteCode  # the same IR, translated once per function
            pm.add_pass(pass_class, description)
        pm.add_pass(LensTypeInference, "nopython frontend")
        if self.state.flags.auto_parallel.enabled:
            pm.add_pass(PreLowerStripPhis, "remove phis nodes")
            pm.add_pass(InlineOverloads, "inline overloaded functions")
            pm.add_pass(PreParforPass, "Preprocessing for parfors")
            if not self.state.flags.no_rewrites:
                pm.add_pass(NopythonRewrites, "nopython rewrites")
            pm.add_pass(ParforPass, "convert to parfors")
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
    dispatcher: Any,
    args: tuple[Any, ...],
    return_type: Any | None,
    list_param: str | None = None,
    flags: Any | None = None,
) -> Inference:
    """Front end + type inference of one function for one signature. Never compiles to LLVM.

    `list_param`: a parameter passed an untyped empty list; `.list_element` then says what the
    function puts in it (callee_list_element). `flags`: another target's compile flags (cuda.py)."""
    started = time.perf_counter()
    result = Inference(args=args)
    if not hasattr(dispatcher, "targetdescr"):  # the CUDA simulator's kernel: a Python function
        result.unknown_reason = (
            "it runs under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1), as Python: nothing types it"
        )
        return result
    py_func = dispatcher.py_func
    filename = py_func.__code__.co_filename
    flags = _flags_for(dispatcher) if flags is None else flags

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
                locals=getattr(dispatcher, "locals", {}),
                pipeline_class=Pipeline,
            )
        except errors.ForceLiteralArg as exc:
            # numba.literally: the dispatcher compiles again with the requested arguments as the literals
            # of the values it was called with. Argument types carry no values (an omitted argument's
            # OmittedArg has no literal either: Numba fails on it), so these types give no types.
            result.literal_request = frozenset(exc.requested_args)
            names = ", ".join(_param_name(py_func, i) for i in sorted(exc.requested_args))
            result.unknown_reason = (
                f"Numba compiles it for the literal value of {names} (numba.literally), and these argument "
                "types do not carry the value"
            )
        except errors.NumbaError as exc:
            result.errors.append(error_info(exc, filename))
        except Exception as exc:  # an internal error of Numba's passes on odd code: say so, never crash
            info = error_info(exc, filename)
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


def force_literal_arguments(dispatcher: Any, requested: frozenset[int]) -> Exception:
    """What a callee's dispatcher raises to its caller's typing when the callee asks for literal arguments
    (Dispatcher.compile): Numba's typing of the caller maps them to the caller's own arguments, and asks
    for those as literals in turn, or fails when a value is not an argument ("Cannot request literal
    type"), as it does for the program."""

    def folded(args: Any, kws: Any) -> Any:
        return dispatcher._compiler.fold_argument_types(args, kws)[1]

    return errors.ForceLiteralArg(requested, fold_arguments=folded)


def _param_name(py_func: Any, index: int) -> str:
    try:
        names = list(inspect.signature(py_func).parameters)
    except (TypeError, ValueError):
        names = []
    return f"`{names[index]}`" if index < len(names) else f"#{index}"


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


_list_probe_depth: ContextVar[int] = ContextVar("list_probe_depth", default=0)


def callee_list_element(dispatcher: Any, arg_types: list[Any], position: int) -> Any | None:
    """What a jitted callee puts into the list passed at `position`: the callee typed with that argument
    as an untyped reflected list (a variant: inference only, and it fails, but its partial typemap
    types what is appended). None when the other arguments are not known or nothing tells."""
    if _list_probe_depth.get() >= 3:
        return None
    others = [ty for index, ty in enumerate(arg_types) if index != position]
    if any(ty is None or not isinstance(ty, nbtypes.Type) or not ty.is_precise() for ty in others):
        return None
    try:
        params = list(inspect.signature(dispatcher.py_func).parameters)
    except (TypeError, ValueError):
        return None
    if position >= len(params):
        return None
    args = list(arg_types)
    args[position] = nbtypes.List(nbtypes.undefined, reflected=True)
    depth = _list_probe_depth.set(_list_probe_depth.get() + 1)
    try:
        probe = infer(dispatcher, tuple(args), None, list_param=params[position])
    except Exception:
        return None
    finally:
        _list_probe_depth.reset(depth)
    return probe.list_element
