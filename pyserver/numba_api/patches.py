"""The Numba methods the analysis replaces, installed by `install()` (the analysis worker calls it at
start; nothing is patched at import). Each replacement keeps Numba's behaviour unless the analysis is
typing (a callee resolver is in effect) or the function is one this package's pipeline types:

- calls to workspace dispatchers are typed through the callee resolver, never compiled (a recursive
  call of other argument types too), and a
  `with objmode(...)` block's call by its declared output types, without its object-mode compile;
- library dispatchers are typed by inference, not an LLVM compile;
- successful call resolutions are remembered across functions;
- Numba's variable listing and the untyped passes' post-processing do less of what only lowering reads
  (no dels for a closure-inlining pass that has nothing to inline, the only reader of its dels);
- an inline="always" callee's untyped IR is made once, not at every call site it is inlined into, and
  IR blocks are deep-copied faster (ir_copy.py: the same copies), once per site rather than twice;
- copy propagation (the parfor passes' `simplify`) computes the same sets without deep copies;
- SSA reconstruction rewrites, for each variable, only the blocks that name it (ssa_blocks.py);
- the used variables are defined once per scope the blocks share, not once per block;
- compile flags hash and compare without reading each of their options through its property.
"""

from __future__ import annotations

import _functools
import copy
import functools
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numba
import numba.stencils
from numba.core import (
    bytecode,
    ir,
    ir_utils,
    postproc,
    sigutils,
    ssa,
    targetconfig,
    transforms,
    typing,
    untyped_passes,
)
from numba.core import types as nbtypes
from numba.core.dispatcher import Dispatcher, ObjModeLiftedWith, _DispatcherBase
from numba.core.inline_closurecall import InlineClosureCallPass, InlineWorker
from numba.core.typeinfer import TypeInferer
from numba.core.typing.context import BaseContext
from numba.core.typing.templates import _EmptyImplementationEntry, _OverloadFunctionTemplate
from numba.parfors import parfor
from numba.stencils import stencil as stencils

from pyserver.caches import BoundedCache, bounded_cache
from pyserver.numba_api import ssa_blocks
from pyserver.numba_api.callees import callee_resolver_disabled, current_callee_resolver
from pyserver.numba_api.core import LIFTED_DISPATCHERS, switched_off
from pyserver.numba_api.inference import infer, uses_light_postprocessing
from pyserver.numba_api.ir_copy import deepcopy_block

_original_get_call_template = _DispatcherBase.get_call_template
_original_get_function_type = Dispatcher.get_function_type
_original_get_overload = _DispatcherBase.get_overload
_original_objmode_call_template = ObjModeLiftedWith.get_call_template
_original_get_impl_key = _OverloadFunctionTemplate.get_impl_key
_original_resolve_function_type = BaseContext.resolve_function_type
_original_postprocessor_run = postproc.PostProcessor.run
_original_inline_function = InlineWorker.inline_function
_original_inline_closure_pass_run = InlineClosureCallPass.run
_original_fixup_var_define_in_scope = ir_utils.fixup_var_define_in_scope
_original_config_eq = targetconfig.TargetConfig.__eq__
_original_rec_list_vars = ir.Inst._rec_list_vars
_original_resolve_call = TypeInferer.resolve_call
_installed = False


def _lens_get_call_template(self: Any, args: Any, kws: Any) -> Any:
    resolver = current_callee_resolver()
    if resolver is None or type(self).__name__ in LIFTED_DISPATCHERS:
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


def _lens_get_function_type(self: Any) -> Any:
    """A workspace dispatcher built with one explicit signature (`@njit("intp(intp)")`): Numba compiles it
    and disables compiling, so passed as a value (in a tuple, as `*args`) it is a first-class function
    of that signature. The analysis records the signature instead of compiling it (decorator_hooks): the
    same function type, from the signature as written."""
    found = _original_get_function_type(self)
    declared = self.__dict__.get("_lens_declared")
    if found is not None or not declared or len(declared) != 1 or self.overloads:
        return found
    try:
        args, return_type = sigutils.normalize_signature(declared[0])
    except Exception:  # not a signature Numba reads: its compile fails the same way
        return None
    return None if return_type is None else nbtypes.FunctionType(typing.signature(return_type, *args))


def _lens_resolve_call(self: Any, fnty: Any, pos_args: Any, kw_args: Any) -> Any:
    """A recursive call with other argument types than the compile in progress (`solve(b, s - 1, -w)`
    in a `solve` typed for a literal `w`): Numba types that signature, then reads the compiled overload's
    symbol for lowering, which a typed-only signature has not. The analysis never lowers: the type is
    the answer."""
    if (
        current_callee_resolver() is not None
        and isinstance(fnty, nbtypes.RecursiveCall)
        and not getattr(self, "_skip_recursion", False)
    ):
        dispatcher = fnty.dispatcher_type.dispatcher
        _pysig, args = dispatcher.fold_argument_types(pos_args, kw_args)
        if (
            self.context.callstack.match(dispatcher.py_func, args) is None
            and args not in dispatcher.overloads
        ):
            return self.context.resolve_function_type(fnty.dispatcher_type, pos_args, kw_args)
    return _original_resolve_call(self, fnty, pos_args, kw_args)


def _lens_objmode_call_template(dispatcher: Any, args: Any, kws: Any) -> Any:
    """A `with objmode(...)` block's call, typed as Numba types it (its declared output types, its
    arguments as Python objects) without the object-mode compile Numba does on the way, which lowers."""
    if current_callee_resolver() is None or kws:
        return _original_objmode_call_template(dispatcher, args, kws)
    dispatcher._legalize_arg_types(args)
    forced = [nbtypes.ffi_forced_object] * len(args)
    name = dispatcher.py_func.__name__
    signatures = [typing.signature(dispatcher.output_types, *forced)]
    template = typing.make_concrete_template(f"CallTemplate({name})", key=name, signatures=signatures)
    return template, None, forced, {}


# Library functions (overload implementations, jitted helpers of other packages) are typed by the same
# inference instead of an LLVM compile: the first typing of e.g. np.empty_like in a process otherwise
# costs a full compile. Only successes are remembered; a failure falls back to Numba's own compile.
_library_types: BoundedCache[tuple[Any, tuple[Any, ...]], Any] = bounded_cache(
    "numba_api.library_types", 4096
)


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
        if current_callee_resolver() is None:
            raise
        # Typed, not compiled: analysis never lowers, and a later real compile replaces this entry.
        return _EmptyImplementationEntry("numba-lens: typed only, not compiled")


def _lens_get_impl_key(self: Any, sig: Any) -> Any:
    try:
        return _original_get_impl_key(self, sig)
    except KeyError:
        if current_callee_resolver() is None:
            raise
        return _EmptyImplementationEntry("numba-lens: typed only, not compiled")


# Typing a call to a builtin, an operator or a method gives the same signature for the same argument
# types in every function: remember successes across functions and runs (analysis only; a failure is
# always recomputed, so errors stay exactly Numba's).
_resolutions: BoundedCache[tuple[Any, ...], Any] = bounded_cache("numba_api.resolutions", 16384)


def _lens_resolve_function_type(self: Any, func: Any, args: Any, kws: Any) -> Any:
    if current_callee_resolver() is None or not isinstance(func, nbtypes.Function | nbtypes.BoundFunction):
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


# Overload templates look their implementations up by (context, argument types, flags) at every call
# they type, and compile flags hash and compare by reading each of their ~40 options through a property
# (`values()`). The same dict, built from the class's defaults and the options set; the same hash (the
# sorted option names).
_config_defaults: dict[type, tuple[dict[str, Any], int]] = {}


def _config_class_defaults(cls: type) -> tuple[dict[str, Any], int]:
    found = _config_defaults.get(cls)
    if found is None:
        options: Any = cls.options  # type: ignore[attr-defined]
        defaults = {name: option.default for name, option in options.items()}
        found = _config_defaults[cls] = (defaults, hash(tuple(sorted(defaults))))
    return found


def _config_values(config: Any) -> dict[str, Any] | None:
    """`config.values()`, or None where a value was set that is not one of its class's options."""
    defaults = _config_class_defaults(type(config))[0]
    values = config._values
    if not values.keys() <= defaults.keys():
        return None
    return {**defaults, **values}


def _lens_config_hash(self: Any) -> int:
    return _config_class_defaults(type(self))[1]


def _lens_config_eq(self: Any, other: Any) -> Any:
    if not isinstance(other, targetconfig.TargetConfig):
        return NotImplemented
    mine, theirs = _config_values(self), _config_values(other)
    if mine is None or theirs is None:
        return _original_config_eq(self, other)
    return mine == theirs


# Numba's IR passes list each statement's variables again and again (use-def maps, liveness): its
# recursive walker tests every attribute value against four classes and makes a list per value. The same
# walk, in the same order, with each class's kind looked up once and the leaves (locations, names,
# constants) skipped without a call: the same lists, about 0.5 ms less per inference.
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


def _gather_items(items: Any, out: list[Any]) -> None:
    """The variables of each item of a list, tuple or dict's values, in order."""
    kinds = _LIST_VARS_KINDS
    for item in items:
        kind = kinds.get(type(item))
        if kind is None:
            kind = _list_vars_kind(type(item))
        if kind == _LEAF:
            continue
        if kind == _VAR:
            out.append(item)
        elif kind == _INST:
            out.extend(item.list_vars())
        elif kind == _SEQUENCE:
            _gather_items(item, out)
        else:
            _gather_items(item.values(), out)


def _rec_list_vars(self: Any, value: Any) -> list[Any]:
    kind = _LIST_VARS_KINDS.get(type(value))
    if kind is None:
        kind = _list_vars_kind(type(value))
    if kind == _VAR:
        return [value]
    if kind == _INST:
        return list(value.list_vars())
    out: list[Any] = []
    if kind == _SEQUENCE:
        _gather_items(value, out)
    elif kind == _MAPPING:
        _gather_items(value.values(), out)
    return out


@contextmanager
def list_vars_walk_disabled() -> Iterator[None]:
    """Numba's own walk of IR statements' variables inside (to compare the two)."""
    ours = ir.Inst.__dict__["_rec_list_vars"]
    ir.Inst._rec_list_vars = _original_rec_list_vars  # type: ignore[method-assign]
    try:
        yield
    finally:
        ir.Inst._rec_list_vars = ours  # type: ignore[method-assign]


def _lens_postprocessor_run(self: Any, *args: Any, **kwargs: Any) -> None:
    func_ir = self.func_ir
    emit_dels = bool(args[0] if args else kwargs.get("emit_dels", False))
    if (
        (emit_dels and id(func_ir) not in _dels_unread)
        or not uses_light_postprocessing(getattr(func_ir, "func_id", None))
        or func_ir.is_generator
    ):
        _original_postprocessor_run(self, *args, **kwargs)
        return
    func_ir.blocks = transforms.canonicalize_cfg(func_ir.blocks)
    func_ir.variable_lifetime = postproc.VariableLifetime(func_ir.blocks)
    func_ir.generator_info = None


# Numba's closure-inlining pass emits dels first (a post-processing that computes every variable's
# lifetime) and strips them at its end. Only the inlining of `np.array(list)` after a loop that fills an
# empty list reads them, and the pass changes the IR only when it inlines: a closure (`make_function`),
# `functools.reduce`, a stencil, or that array call. An IR with none of those leaves the pass as it came
# (its CFG canonicalized), dels or not, so they are not emitted for it.
_dels_unread: set[int] = set()  # id(func_ir) of the IRs in such a pass
_INLINED_CALLEES = (
    functools,
    _functools,
    functools.reduce,
    numba,
    numba.stencils,
    stencils,
    stencils.stencil,
)


def _may_inline(func_ir: Any) -> bool:
    for block in func_ir.blocks.values():
        for statement in block.body:
            if not isinstance(statement, ir.Assign):
                continue
            value = statement.value
            if isinstance(value, ir.Expr):
                if value.op == "make_function" or (value.op == "build_list" and not value.items):
                    return True
            elif isinstance(value, ir.Global | ir.FreeVar):
                if isinstance(value.value, stencils.StencilFunc) or any(
                    value.value is callee for callee in _INLINED_CALLEES
                ):
                    return True
    return False


def _lens_inline_closure_pass_run(self: Any) -> None:
    func_ir = self.func_ir
    if not uses_light_postprocessing(getattr(func_ir, "func_id", None)) or _may_inline(func_ir):
        _original_inline_closure_pass_run(self)
        return
    _dels_unread.add(id(func_ir))
    try:
        _original_inline_closure_pass_run(self)
    finally:
        _dels_unread.discard(id(func_ir))


# Numba runs an inline="always" callee's untyped passes again at every call site it inlines it into (and,
# nested, at every site inside that callee): the same IR each time, for the same function, flags,
# locals and contexts. While analysing, that IR is made once and each site inlines a copy of it under a
# fresh unique name, as Numba's own run would name it (inline_ir copies the IR before changing it).
_inline_irs: BoundedCache[tuple[Any, ...], Any] = bounded_cache("numba_api.inline_irs", 512)
_inline_memo_enabled = [True]  # off only to compare with Numba's own inlining (tests)


@contextmanager
def inline_memo_disabled() -> Iterator[None]:
    """Numba's own inlining inside: each site runs the callee's untyped passes, blocks copied by
    Python's deepcopy (to compare the two)."""
    previous = _inline_memo_enabled[0]
    fast_copy = ir.Block.__dict__.get("__deepcopy__")
    _inline_memo_enabled[0] = False
    if fast_copy is not None:
        delattr(ir.Block, "__deepcopy__")
    try:
        yield
    finally:
        _inline_memo_enabled[0] = previous
        if fast_copy is not None:
            ir.Block.__deepcopy__ = fast_copy  # type: ignore[attr-defined]


def _lens_inline_function(
    self: Any, caller_ir: Any, block: Any, i: int, function: Any, arg_typs: Any = None
) -> Any:
    if current_callee_resolver() is None or arg_typs is not None or not _inline_memo_enabled[0]:
        return _original_inline_function(self, caller_ir, block, i, function, arg_typs)
    self.flags.enable_ssa = False  # what run_untyped_passes does to the flags it is given
    try:
        local_types = tuple(sorted((name, str(ty)) for name, ty in (self.locals or {}).items()))
        # a compile makes its own target context (a subtarget with its options): its kind is what counts
        key = (function, id(self.typingctx), type(self.targetctx), repr(self.flags), local_types)
        cached = _inline_irs.get(key)
    except TypeError:  # an unhashable function object
        return _original_inline_function(self, caller_ir, block, i, function, arg_typs)
    if cached is None:
        cached = self.run_untyped_passes(function)
        _inline_irs[key] = cached
    callee_ir = copy.copy(cached)
    callee_ir.func_id = copy.copy(cached.func_id)
    unique = next(bytecode.FunctionIdentity._unique_ids)
    callee_ir.func_id.unique_name = f"{cached.func_id.func_qualname}${unique}"
    _inline_copies.append(_InliningCopies())
    try:
        return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars)
    finally:
        _inline_copies.pop()


# inline_ir copies the callee's blocks twice: the copy it inlines, and a copy of that copy kept unchanged
# and returned first, which its only caller here (InlineInlinables, through inline_function) throws
# away. Inside _lens_inline_function the second copy is the first one's blocks themselves.
# Each block is deep-copied on its own, and with it the function's scope (every variable of the
# function): once per block. Inlining reads one scope of the copy (the variables to rename into the
# caller's scope) and then puts every block in the caller's scope, so the blocks of one copy share one
# copy of the scope.
class _InliningCopies:
    """An inlining in progress: the blocks copied so far, and the scopes copied for them."""

    def __init__(self) -> None:
        self.blocks: set[int] = set()
        self.scopes: dict[int, tuple[Any, Any]] = {}  # id(scope) -> (the scope, its copy), kept alive


_inline_copies: list[_InliningCopies] = []


def _lens_deepcopy_block(block: Any, memo: dict[int, Any]) -> Any:
    if not _inline_copies:
        return deepcopy_block(block, memo)
    inlining = _inline_copies[-1]
    if id(block) in inlining.blocks:
        return block
    scope = block.scope
    known = inlining.scopes.get(id(scope))
    if known is not None:
        memo.setdefault(id(scope), known[1])
    copied = deepcopy_block(block, memo)
    inlining.blocks.add(id(copied))
    if known is None and id(scope) in memo:
        inlining.scopes[id(scope)] = (scope, memo[id(scope)])
    return copied


def _copy_propagate_data(blocks: Any, entry: Any, typemap: Any) -> tuple[Any, ...]:
    """Numba's init_copy_propagate_data, each block's assigned names gathered once rather than once per
    copy of the function (the same sets)."""
    gen_copies, extra_kill = ir_utils.get_block_copies(blocks, typemap)
    all_copies: set[tuple[str, str]] = set().union(*gen_copies.values())
    kill_copies = {}
    for label, gen_set in gen_copies.items():
        extra, assigned = extra_kill[label], {lhs for lhs, _rhs in gen_set}
        kill_copies[label] = {
            (lhs, rhs)
            for lhs, rhs in all_copies
            if lhs in extra
            or rhs in extra
            or ((lhs, rhs) not in gen_set and (lhs in assigned or rhs in assigned))
        }
    in_copies = {label: all_copies.copy() for label in blocks}
    in_copies[entry] = set()
    out_copies = {label: gen_copies[label] | (in_copies[label] - kill_copies[label]) for label in blocks}
    out_copies[entry] = gen_copies[entry]
    return gen_copies, all_copies, kill_copies, in_copies, out_copies


def _lens_copy_propagate(blocks: Any, typemap: Any) -> tuple[dict[Any, set[Any]], dict[Any, set[Any]]]:
    """Numba's copy_propagate (the same fixed point): its sets hold pairs of variable names and are
    replaced, never changed, so each round's snapshot copies the sets, not every pair in them."""
    cfg = ir_utils.compute_cfg_from_blocks(blocks)
    entry = cfg.entry_point()
    gen_copies, _all, kill_copies, in_copies, out_copies = _copy_propagate_data(blocks, entry, typemap)
    predecessors = {label: [p for p, _ in cfg.predecessors(label)] for label in blocks if label != entry}
    old_point = None
    new_point = {label: set(copies) for label, copies in out_copies.items()}
    while old_point != new_point:
        for label, predecs in predecessors.items():
            in_copies[label] = out_copies[predecs[0]].copy()
            for p in predecs:
                in_copies[label] &= out_copies[p]
            out_copies[label] = gen_copies[label] | (in_copies[label] - kill_copies[label])
        old_point = new_point
        new_point = {label: set(copies) for label, copies in out_copies.items()}
    return in_copies, out_copies


_per_scope_fixup = [True]  # off only to compare with Numba's own (tests)


def per_scope_fixup_disabled() -> AbstractContextManager[None]:
    """Numba's own fixup_var_define_in_scope inside (to compare the two)."""
    return switched_off(_per_scope_fixup)


def _lens_fixup_var_define_in_scope(blocks: Any) -> None:
    """Numba's fixup_var_define_in_scope defines every variable the blocks use in each block's scope,
    once per block: blocks share a scope (all of a function's, as a rule), and a scope done once has every
    name, so the same definitions, in the same order, are made once per scope."""
    if current_callee_resolver() is None or not _per_scope_fixup[0]:
        _original_fixup_var_define_in_scope(blocks)
        return
    used: dict[Any, Any] = {}
    for block in blocks.values():
        for inst in block.body:
            for var in inst.list_vars():
                used[var] = inst
    done: set[int] = set()
    for block in blocks.values():
        localvars = block.scope.localvars
        if id(localvars) in done:
            continue
        done.add(id(localvars))
        for var in used:
            if var.name not in localvars:
                localvars.define(var.name, var)


def install() -> None:
    """Install the replacements (once per process; later calls do nothing)."""
    global _installed
    if _installed:
        return
    _installed = True
    BaseContext.resolve_function_type = _lens_resolve_function_type  # type: ignore[method-assign]
    _DispatcherBase.get_overload = _lens_get_overload  # type: ignore[method-assign]
    _OverloadFunctionTemplate.get_impl_key = _lens_get_impl_key  # type: ignore[method-assign]
    _DispatcherBase.get_call_template = _lens_get_call_template  # type: ignore[method-assign]
    Dispatcher.get_function_type = _lens_get_function_type  # type: ignore[method-assign]
    TypeInferer.resolve_call = _lens_resolve_call  # type: ignore[method-assign]
    ObjModeLiftedWith.get_call_template = _lens_objmode_call_template  # type: ignore[method-assign]
    ir.Inst._rec_list_vars = _rec_list_vars  # type: ignore[method-assign]
    postproc.PostProcessor.run = _lens_postprocessor_run  # type: ignore[method-assign]
    InlineClosureCallPass.run = _lens_inline_closure_pass_run  # type: ignore[method-assign]
    InlineWorker.inline_function = _lens_inline_function  # type: ignore[method-assign]
    ir.Block.__deepcopy__ = _lens_deepcopy_block  # type: ignore[attr-defined]
    ir_utils.copy_propagate = _lens_copy_propagate
    parfor.copy_propagate = _lens_copy_propagate  # imported by name there
    ir_utils.fixup_var_define_in_scope = _lens_fixup_var_define_in_scope
    untyped_passes.fixup_var_define_in_scope = _lens_fixup_var_define_in_scope  # imported by name there
    if ssa_blocks.AVAILABLE:
        ssa._run_ssa = ssa_blocks.run_ssa
    targetconfig.TargetConfig.__hash__ = _lens_config_hash  # type: ignore[method-assign,assignment]
    targetconfig.TargetConfig.__eq__ = _lens_config_eq  # type: ignore[method-assign,assignment]
