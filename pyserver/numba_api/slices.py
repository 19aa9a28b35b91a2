"""Typing a slice of a Python caller with Numba's inference (the python-caller source); nothing runs.

Part of the numba_api fence (see its __init__): Numba internals live only in this package.
"""

from __future__ import annotations

import dis
import operator
import os
import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba.core import analysis, bytecode, compiler, interpreter, ir, transforms, typed_passes
from numba.core import types as nbtypes
from numba.core.registry import cpu_target
from numba.core.typing.templates import CallableTemplate

from pyserver.numba_api.core import WITH_OPCODES
from pyserver.numba_api.slice_containers import bound_receivers, untrusted_containers

# --------------------------------------------------------------------------------------------------
# Python callers (python_callers.py): a slice of a Python caller, typed by inference; nothing runs


@dataclass
class SliceTyping:
    """The types Numba infers for a synthetic function made of a caller's slice (nothing executed)."""

    types: dict[str, Any]  # variable name -> type (None: undecided)
    # variable -> the unliteral types of the values assigned to it, where they differ (a branch or a
    # loop that gives it different types: Numba unifies them, Python keeps one of them)
    conflicts: dict[str, list[str]]
    # variables read by an operator mixing a narrow dtype (float32, int32, uint8, ...) with another
    # type: NumPy 2's promotion and Numba's may differ there
    mixed_narrow: set[str]
    error: str | None  # why nothing could be typed (an error of Numba's front end), else None
    elapsed_ms: float
    # Numeric constants (type, value) whose value no type here depends on (value_free_constants): a slice
    # that differs only in them types the same.
    free_constants: frozenset[tuple[type, Any]] = frozenset()
    pruned: bool = False  # branches that the arguments' types rule out were dropped (see type_python_slice)
    failed: bool = False  # some statement failed to type (Numba's typing errors, not raised)
    returned: frozenset[str] = frozenset()  # the unliteral types of the values each `return` gives
    return_type: Any = None  # Numba's unified return type
    # some expression (a temporary too, not only a variable in mixed_narrow) may differ in Python
    mixed_anywhere: bool = False
    errors: tuple[str, ...] = ()  # the first lines of Numba's typing errors (not raised), a few


_WIDE_DTYPES = ("int64", "float64", "complex128", "bool")


def value_type(value: Any) -> Any | None:
    """Numba's type of a global value as a jitted function would see it, or None if it has none."""
    try:
        return cpu_target.typing_context.resolve_value_type(value)
    except Exception:
        return None


# Operations on narrow dtypes (float32, int32, uint8, ...) whose result dtype NumPy 2 and Numba agree on
# (checked against NumPy: reductions, copies, reshapes); any other operation on them may differ (a.std(),
# np.sqrt(uint8): float32 in Numba, float16 in NumPy; a + 1.5 on float32 ...).
_NARROW_SAFE = {
    "sum", "mean", "min", "max", "prod", "cumsum", "cumprod", "argmax", "argmin", "astype", "copy",
    "reshape", "ravel", "flatten", "transpose", "ascontiguousarray", "zeros_like", "ones_like",
    "empty_like", "len", "abs", "absolute", "isnan", "isfinite", "any", "all", "sort", "argsort",
    "nonzero", "count_nonzero", "flatnonzero", "unique", "full_like",
    # arrays of one dtype joined keep it (several dtypes: checked apart, below)
    "concatenate", "vstack", "hstack", "stack", "dstack", "column_stack",
}  # fmt: skip


def _callee_name(fnty: Any) -> str:
    key = getattr(fnty, "typing_key", None)
    name = key if isinstance(key, str) else getattr(key, "__name__", str(key))
    return str(name).rsplit(".", 1)[-1]


def _python_and_numba_may_differ(expr: Any, typemap: dict[str, Any]) -> bool:
    """Could Python compute a value of another type than Numba types this expression as (in a caller)?"""
    if expr.op in ("binop", "inplace_binop", "unary"):
        operands = [expr.value] if expr.op == "unary" else [expr.lhs, expr.rhs]
        dtypes = {_dtype_of(typemap.get(v.name)) for v in operands}
        narrow = any(d not in _WIDE_DTYPES for d in dtypes)
        return (len(dtypes) > 1 and narrow) or (expr.op == "unary" and (narrow or "bool" in dtypes))
    if expr.op == "build_set":  # Python keeps each item's type; Numba unifies them
        return len({str(nbtypes.unliteral(typemap.get(v.name))) for v in expr.items}) > 1
    if expr.op != "call":
        return False
    fnty = typemap.get(expr.func.name)
    if isinstance(fnty, nbtypes.Dispatcher):  # a jitted function: at run time Numba computes it too
        return False
    if getattr(fnty, "typed_as_python", False):  # a Python function: its typing checked its statements
        return False
    name = _callee_name(fnty)
    args = [typemap.get(v.name) for v in [*expr.args, *(v for _k, v in expr.kws)]]
    for arg in args:  # arrays of several dtypes joined (np.concatenate): Numba unifies, NumPy promotes
        items = arg.types if isinstance(arg, nbtypes.BaseTuple) else ()  # type: ignore[attr-defined]
        arrays = [t for t in items if isinstance(t, nbtypes.Array)]
        if len({str(t.dtype) for t in arrays}) > 1:
            return True
    receiver = [fnty.this] if isinstance(fnty, nbtypes.BoundFunction) else []
    if name in ("max", "min") and isinstance(fnty, nbtypes.Function):  # max(3, 2.5) is 3 in Python
        return len({str(nbtypes.unliteral(a)) for a in args}) > 1
    if name == "argwhere":  # NumPy's is C or F by the input's rank, Numba's any layout
        return True
    if name == "nonzero" or (name == "where" and len(args) == 1):
        # NumPy's index arrays of an N-d array are views into one (N, k) array, not contiguous as Numba's
        return any(isinstance(a, nbtypes.Array) and a.ndim > 1 for a in receiver + args)
    return (
        any(_dtype_of(a) not in (None, *_WIDE_DTYPES) for a in receiver + args) and name not in _NARROW_SAFE
    )


def _unliteral_text(ty: Any) -> str:
    return "?" if ty is None else str(nbtypes.unliteral(ty))


def _dtype_of(ty: Any) -> str | None:
    """The dtype that promotion sees; boolean arrays count as narrow (np.sqrt of one is float16 in NumPy)."""
    if isinstance(ty, nbtypes.Array):
        return "bool[]" if isinstance(ty.dtype, nbtypes.Boolean) else str(ty.dtype)
    if isinstance(ty, nbtypes.Number | nbtypes.Boolean):
        return str(nbtypes.unliteral(ty))
    return None


# --------------------------------------------------------------------------------------------------
# Stand-ins: NumPy calls that Numba cannot type inside jitted code, but whose result has one Numba type
# whatever the arguments. A slice calls the stand-in instead (python_callers substitutes it), so what
# follows (`rng.random(n)`, a kernel called with `rng`) gets Numba's own typing.


def _default_rng_stand_in(*args: Any, **kwargs: Any) -> Any:  # pragma: no cover - typed, never run
    """np.random.default_rng in a slice: whatever the seed, it returns a numpy.random.Generator."""
    raise RuntimeError("a Numba Lens stand-in: typed only")


GENERATOR_TYPE = getattr(nbtypes, "NumPyRandomGeneratorType", None)  # Numba >= 0.56


def _register_stand_ins() -> dict[int, tuple[str, str, Any]]:
    """The stand-ins this Numba can type: id(NumPy's function) -> (its name, the slice's name for the
    stand-in, the stand-in)."""
    if GENERATOR_TYPE is None:
        return {}
    try:
        import numba.np.random.generator_methods  # noqa: F401  (the Generator's methods' typing)
        from numba.core.extending import type_callable
    except ImportError:
        return {}

    @type_callable(_default_rng_stand_in)  # type: ignore[misc]
    def _type_default_rng(context: Any) -> Any:
        def typer(seed: Any = None) -> Any:
            return GENERATOR_TYPE("NumPyRandomGeneratorType")  # the type numba.typeof gives a Generator

        return typer

    return {id(np.random.default_rng): ("default_rng", "__lens_default_rng__", _default_rng_stand_in)}


NUMPY_STAND_INS = _register_stand_ins()
_stand_ins_loaded = False


def _reads_mixed(
    name: str,
    sources: dict[str, set[tuple[str, bool]]],
    items: dict[str, set[str]],
    mixed: set[str],
    promoted: dict[str, set[str]],
) -> bool:
    """Does `name`'s value come from a value Python and Numba may type differently: a variable in
    `mixed`, or a list whose items (counted over every variable that is the same list or a copy of
    it) have several types? Not a list of Python scalars of several kinds that `np.array` reads
    (`promoted`: array -> the lists it is made of): NumPy promotes `[0.1, 10]` to float64 as Numba
    unifies its items."""
    roots, visited = [(name, False)], set()
    while roots:
        root, promoting = roots.pop()
        if root in visited:
            continue
        members, stack, put = set(), [root], set()  # one list and its copies
        while stack:
            current = stack.pop()
            if current in members:
                continue
            members.add(current)
            if current in mixed:
                return True
            put |= items.get(current, set())
            for read, same_list in sources.get(current, ()):
                if same_list:
                    stack.append(read)
                else:
                    roots.append((read, read in promoted.get(current, ())))
        if len(put) > 1 and not (promoting and put <= _PYTHON_SCALARS):
            return True
        visited |= members
    return False


# The types Numba gives Python's own scalars (bool, int, float, complex): NumPy's array creation
# promotes a mix of them to the same type as Numba's unification of them.
_PYTHON_SCALARS = frozenset({"bool", "int64", "float64", "complex128"})


def _array_of_list(expr: Any, typemap: dict[str, Any]) -> str | None:
    """The list variable `np.array(items)` / `np.asarray(items)` (no dtype) makes an array of, if any."""
    fnty = typemap.get(expr.func.name) if expr.op == "call" else None
    if not isinstance(fnty, nbtypes.Function) or expr.kws or len(expr.args) != 1:
        return None
    if getattr(fnty, "typing_key", None) not in (np.array, np.asarray):
        return None
    return expr.args[0].name if isinstance(typemap.get(expr.args[0].name), nbtypes.List) else None


def type_python_slice(py_func: Any, arg_types: tuple[Any, ...]) -> SliceTyping:
    """Front end + partial type inference of `py_func` (a slice compiled from a caller's statements):
    its typemap, and where Python's run-time types could differ from Numba's unified ones."""
    global _stand_ins_loaded
    started = time.perf_counter()
    if not _stand_ins_loaded:  # the typing context loads what registries gained since it last did
        cpu_target.typing_context.refresh()
        _stand_ins_loaded = True
    try:
        func_ir = slice_frontend(py_func)
        blocks = len(func_ir.blocks)
        if any(not isinstance(t, nbtypes.Boolean) for t in arg_types):
            # The tests of parameters a slice keeps (`param is None`, `param.ndim == 1`, `len(param) == 2`):
            # the branch a parameter's type rules out never runs, as Numba prunes it in jitted code
            analysis.rewrite_semantic_constants(func_ir, arg_types)
            analysis.dead_branch_prune(func_ir, arg_types)
        pruned = len(func_ir.blocks) != blocks
        state = typed_passes.type_inference_stage(
            cpu_target.typing_context, cpu_target.target_context, func_ir, arg_types, None, raise_errors=False
        )
    except Exception as exc:  # an unsupported opcode, an untyped global: the slice gives nothing
        return SliceTyping({}, {}, set(), f"{type(exc).__name__}: {exc}".splitlines()[0], 0.0)
    typemap, calltypes = state.typemap, state.calltypes
    assigned: dict[str, set[str]] = {}
    mixed: set[str] = set()
    unknown = 0
    # list variable -> the types of the items put into it (a display, append/insert/extend, setitem):
    # Python keeps each item's type, Numba unifies them into one.
    items: dict[str, set[str]] = {}
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.SetItem) and isinstance(typemap.get(stmt.target.name), nbtypes.List):
                items.setdefault(stmt.target.name, set()).add(_unliteral_text(typemap.get(stmt.value.name)))
            if not isinstance(stmt, ir.Assign):
                continue
            target = stmt.target.name
            if not target.startswith("$"):
                ty = _assigned_type(stmt.value, typemap, calltypes)
                if ty is None:
                    unknown += 1  # each unknown value may differ from every other one
                text = f"?{unknown}" if ty is None else str(nbtypes.unliteral(ty))
                assigned.setdefault(target, set()).add(text)
            expr = stmt.value
            if not isinstance(expr, ir.Expr):
                continue
            if _python_and_numba_may_differ(expr, typemap):
                mixed.add(target)
            if expr.op == "build_list":
                items.setdefault(target, set()).update(
                    _unliteral_text(typemap.get(v.name)) for v in expr.items
                )
            fnty = typemap.get(expr.func.name) if expr.op == "call" else None
            if isinstance(fnty, nbtypes.BoundFunction) and isinstance(fnty.this, nbtypes.List) and expr.args:
                name = _callee_name(fnty)
                added = typemap.get(expr.args[-1].name)
                if name == "extend":
                    added = getattr(added, "dtype", None)
                if name in ("append", "insert", "extend"):
                    for receiver in bound_receivers(func_ir, expr.func.name):
                        items.setdefault(receiver, set()).add(_unliteral_text(added))
    # Temporaries stand for the user variables they are assigned to: follow `x = $t` back. The items put
    # into a list count together along the edges that keep the same list or copy it (`y = x`, `x + z`,
    # `list(x)`); a display's elements and a call that makes something else (`np.array(rows)`) are
    # other values, whose own items are checked on their own: else `[[1, 2], [3, 4]]` would mix
    # `int64` with `list(int64)`.
    sources: dict[str, set[tuple[str, bool]]] = {}  # target -> (read variable, same list)
    promoted: dict[str, set[str]] = {}  # array -> the list `np.array` made it of
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign):
                value = stmt.value
                made_of = _array_of_list(value, typemap) if isinstance(value, ir.Expr) else None
                if made_of is not None:
                    promoted.setdefault(stmt.target.name, set()).add(made_of)
                if isinstance(value, ir.Var):
                    reads = {value.name}
                    same_list = True
                else:
                    reads = {v.name for v in value.list_vars()} if hasattr(value, "list_vars") else set()
                    same_list = isinstance(typemap.get(stmt.target.name), nbtypes.List) and not (
                        isinstance(value, ir.Expr) and value.op.startswith("build_")
                    )
                sources.setdefault(stmt.target.name, set()).update((r, same_list) for r in reads)
    mixed_users = untrusted_containers(func_ir, typemap)
    # the values themselves: what reads them is found by following the reads (a list of several kinds
    # of items is mixed, an array NumPy makes of it need not be)
    seeds = mixed | mixed_users
    for name in typemap:
        if not name.startswith("$") and _reads_mixed(name, sources, items, seeds, promoted):
            mixed_users.add(name)
    return SliceTyping(
        types={name: ty for name, ty in typemap.items() if not name.startswith("$")},
        conflicts={name: sorted(types) for name, types in assigned.items() if len(types) > 1},
        mixed_narrow=mixed_users,
        error=None,
        elapsed_ms=(time.perf_counter() - started) * 1000.0,
        pruned=pruned,
        failed=bool(state.typing_errors),
        returned=frozenset(_returned_types(func_ir, typemap)),
        return_type=state.return_type,
        mixed_anywhere=bool(mixed or mixed_users),
        errors=tuple(_error_line(e) for e in (state.typing_errors or [])[:8]),
        free_constants=frozenset()
        if state.typing_errors
        else value_free_constants(func_ir, typemap, calltypes),
    )


# Arithmetic operators whose typing for an array and a number Numba does by NumPy's rules on the types
# (npydecl.NumpyRulesArrayOperator): the number's value never matters. Their templates are taken at the
# warm-up, before any workspace module can register an overload of its own.
_ARITHMETIC = (
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
    operator.pow,
)  # fmt: skip
numba_operator_templates: dict[Any, tuple[Any, ...]] = {}


_NUMBA_DIR = os.path.dirname(numba.__file__) + os.sep


def numbas_own_template(template: Any) -> bool:
    """Is this typing template Numba's (its typing code in Numba's package), not a workspace's overload?"""
    function = getattr(template, "_overload_func", None)
    if function is None:
        function = getattr(template, "generic", None)
        if function is None:
            return hasattr(template, "cases")  # a ConcreteTemplate: signatures matched by type only
        if isinstance(template, type) and issubclass(template, CallableTemplate):
            try:
                function = function(None)  # make_callable_template's generic: the typer it wraps
            except Exception:
                return False
    code = getattr(function, "__code__", None)
    return code is not None and code.co_filename.startswith(_NUMBA_DIR)


def _snapshot_operator_templates() -> None:
    """The arithmetic operators' templates, if all are Numba's (at the warm-up: before any workspace
    module loads, so nothing registered since is trusted either)."""
    context = cpu_target.typing_context
    for op in _ARITHMETIC:
        templates = tuple(context.resolve_value_type(op).templates)
        if all(numbas_own_template(t) for t in templates):
            numba_operator_templates[op] = templates


def _operators_are_numbas() -> bool:
    """Are the arithmetic operators typed by Numba's templates of the warm-up only (no overload since)?"""
    if len(numba_operator_templates) != len(_ARITHMETIC):
        return False
    context = cpu_target.typing_context
    return all(
        tuple(context.resolve_value_type(op).templates) == numba_operator_templates[op] for op in _ARITHMETIC
    )


def value_free_constants(
    func_ir: Any, typemap: dict[str, Any], calltypes: Any
) -> frozenset[tuple[type, Any]]:
    """The int and float constants of a typed slice whose value provably changes no type of it: every
    occurrence is a temporary read only as an operand of + - * / // % ** with an array, whose typing
    took the number's type, not its literal value (NumPy's rules; no overload of the operator but
    Numba's own). Another int of the same Numba type, or another float, there gives the same types."""
    temporaries: dict[str, tuple[type, Any]] = {}
    refused: set[tuple[type, Any]] = set()
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Const):
                value = stmt.value.value
                if type(value) in (int, float):
                    key = (type(value), value)
                    if stmt.target.name.startswith("$"):
                        temporaries[stmt.target.name] = key
                    else:  # a user variable holds it: a probe may read its literal type
                        refused.add(key)
    if not temporaries or not _operators_are_numbas():
        return frozenset()
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if not isinstance(stmt, ir.Assign):
                read = stmt.list_vars()
            elif (
                isinstance(stmt.value, ir.Expr) and stmt.value.op == "binop" and stmt.value.fn in _ARITHMETIC
            ):
                expr = stmt.value
                signature = calltypes.get(expr)
                operands = [expr.lhs, expr.rhs]
                for position, operand in enumerate(operands):
                    found = temporaries.get(operand.name)
                    if found is not None and (
                        signature is None
                        or not isinstance(typemap.get(operands[1 - position].name), nbtypes.Array)
                        or isinstance(signature.args[position], nbtypes.Literal)
                    ):
                        refused.add(found)
                continue
            elif isinstance(stmt.value, ir.Expr):
                read = stmt.value.list_vars()
            else:
                read = [stmt.value] if isinstance(stmt.value, ir.Var) else []
            for var in read:
                if var.name in temporaries:
                    refused.add(temporaries[var.name])
    return frozenset(temporaries.values()) - refused


# Peepholes of Numba's interpreter that change nothing unless the bytecode holds these instructions:
# `with` (its __exit__ variables) and dict displays/updates (fusing them). A slice rarely has either.
_PEEPHOLE_OPCODES = {
    "peep_hole_delete_with_exit": WITH_OPCODES,
    "peep_hole_fuse_dict_add_updates": frozenset(
        dis.opmap[name]
        for name in ("BUILD_MAP", "BUILD_CONST_KEY_MAP", "DICT_UPDATE", "DICT_MERGE", "MAP_ADD")
        if name in dis.opmap
    ),
}


class _SliceInterpreter(interpreter.Interpreter):  # type: ignore[misc]
    """Numba's interpreter, without the peepholes that provably do nothing for this bytecode."""

    def post_process(self, peepholes: list[Any], func_ir: Any) -> Any:
        opcodes = set(self.func_id.code.co_code[0::2])  # wordcode: (opcode, argument) pairs
        kept = [p for p in peepholes if _PEEPHOLE_OPCODES.get(getattr(p, "__name__", ""), opcodes) & opcodes]
        return super().post_process(kept, func_ir)


def _error_line(error: Any) -> str:
    text = str(error[1] if isinstance(error, tuple) else error)
    return (text.strip().splitlines() or [""])[0]


def _returned_types(func_ir: Any, typemap: dict[str, Any]) -> set[str]:
    """The unliteral type of each value a `return` gives (before Numba casts them to one type)."""
    casts = {
        stmt.target.name: stmt.value.value.name
        for block in func_ir.blocks.values()
        for stmt in block.body
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr) and stmt.value.op == "cast"
    }
    found = set()
    for block in func_ir.blocks.values():
        last = block.body[-1] if block.body else None
        if isinstance(last, ir.Return):
            name = casts.get(last.value.name, last.value.name)
            found.add(_unliteral_text(typemap.get(name)))
    return found


def slice_frontend(py_func: Any) -> Any:
    """compiler.run_frontend for a slice, less what only lowering reads: the variables' lifetimes (the
    PostProcessor's liveness analysis); the CFG is canonicalized as it does. A generator (a slice holding
    a `yield`) takes Numba's own front end."""
    func_id = bytecode.FunctionIdentity.from_function(py_func)
    if func_id.is_generator or not hasattr(interpreter.Interpreter, "post_process"):
        return compiler.run_frontend(py_func)
    func_ir = _SliceInterpreter(func_id).interpret(bytecode.ByteCode(func_id=func_id))
    func_ir.blocks = transforms.canonicalize_cfg(func_ir.blocks)
    func_ir.generator_info = None
    return func_ir


def _assigned_type(value: Any, typemap: dict[str, Any], calltypes: dict[Any, Any]) -> Any | None:
    """The type of one value assigned to a variable (not the variable's type, which Numba unifies)."""
    try:
        if isinstance(value, ir.Var):
            return typemap.get(value.name)
        if isinstance(value, ir.Const | ir.Global | ir.FreeVar):
            return value_type(value.value)
        if isinstance(value, ir.Expr):
            signature = calltypes.get(value)
            if signature is not None:
                return signature.return_type
            if value.op == "getattr":
                return cpu_target.typing_context.resolve_getattr(typemap[value.value.name], value.attr)
    except Exception:
        return None
    return None


# --------------------------------------------------------------------------------------------------
# Warm-up: what Python callers commonly do, typed once per process before any file arrives


def _warm_kernel(a, scale, steps):  # pragma: no cover - typed by Numba, never run
    total = 0.0
    for i in range(steps):
        for j in range(a.shape[0]):
            total += a[j] * scale - i
    out = np.empty_like(a)
    zeros = np.zeros_like(a)
    for j in range(a.shape[0]):
        out[j] = a[j] + total / (steps + 1) + zeros[j]
    return out


def _warm_caller(cond, n, x):  # pragma: no cover - typed by Numba as a caller's slice, never run
    data = np.linspace(0.0, 1.0, n) * 2
    noise = np.random.rand(n)
    data = data + noise * 0.5
    ints = np.arange(n)
    grid = np.arange(32.0).reshape(8, 4)
    row = grid[0].copy()
    made = (np.zeros(n), np.ones(n), np.empty(n), np.zeros((n, n)), np.random.random(n), np.random.randn(n))
    narrow = (np.ones(n, dtype=np.float32), np.zeros(n, dtype=np.float32), np.empty(n, dtype=np.int64))
    steps = 3
    while cond:
        data = warm_kernel_jit(data, x, steps)
    return data, ints, row, made, narrow, n + 1


warm_kernel_jit: Any = None  # the jitted _warm_kernel, made by the warm-up


def warm_up_python_callers() -> SliceTyping | None:
    """Type a typical caller slice and the kernel it calls (C-contiguous arrays, as Python passes them)
    once per process: the typing templates of np.linspace, np.random.rand, np.ones(dtype=...), array
    arithmetic and a kernel's loops over C arrays load here, not in the first file's analysis (tens of
    ms there; the analysis worker builds its analyzer, and so this, before any file arrives). Returns
    the slice's typing the first time, else None."""
    global warm_kernel_jit
    if warm_kernel_jit is not None:
        return None
    from pyserver.numba_api.callees import callee_resolver
    from pyserver.numba_api.core import mark_workspace_dispatcher, refresh_contexts
    from pyserver.numba_api.inference import infer

    def resolve(dispatcher: Any, args: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], Any]]:
        args = tuple(nbtypes.unliteral(a) for a in args)  # as python_call_types passes them
        return [(args, infer(dispatcher, args, None).return_type)]

    try:
        refresh_contexts()
        warm_kernel_jit = numba.njit(_warm_kernel)
        mark_workspace_dispatcher(warm_kernel_jit)  # typed through the resolver, as a workspace kernel is
        _snapshot_operator_templates()
        with callee_resolver(resolve):
            return type_python_slice(_warm_caller, (nbtypes.boolean, nbtypes.int64, nbtypes.float64))
    except Exception:  # a speed-up only: the analyses that follow pay for what it did not load
        warm_kernel_jit = warm_kernel_jit or _warm_kernel
        return None
