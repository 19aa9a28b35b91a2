"""Typing one Python caller's slice (python_callers.py): the slice's globals, the synthesized function
with a probe per call, and Numba's typing of it, shared between slices that differ only in constants."""

from __future__ import annotations

import ast
import builtins
import hashlib
import os
import sys
import types as pytypes
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from pyserver import numba_api
from pyserver.analysis.worker.signatures.argparse_values import ArgparsePlan
from pyserver.analysis.worker.signatures.call_index import CallIndex
from pyserver.analysis.worker.signatures.call_rewrites import rewrite_numpy_calls
from pyserver.analysis.worker.signatures.caller_probes import (
    LeftOut,
    constant_shape,
    leave_out_copies,
)
from pyserver.analysis.worker.signatures.caller_slices import (
    ITER,
    NEXT,
    Simple,
    enclosing_names,
    resolved_global,
    substitute_stand_ins,
)
from pyserver.analysis.worker.signatures.dtype_stand_ins import covered_names, substitute_dtypes
from pyserver.analysis.worker.signatures.helper_functions import helper_function
from pyserver.analysis.worker.signatures.indexed_file import CallSite, IndexedFile, Scope
from pyserver.analysis.worker.signatures.parameter_tests import decided_tests, kept_test_of, ruled_out

COND = "__lens_cond"
TRY_STATEMENTS = (ast.Try, getattr(ast, "TryStar", ast.Try))  # `try ... except*`: Python 3.11 and later
NEVER_REACHED = (
    "the call is never reached with the types of its caller's parameters (a test of a parameter, for None, "
    "with isinstance, of its .ndim or len(), rules its branch out)"
)
SLICE_CACHE_LIMIT = 2000


def _helper_failure(errors: tuple[str, ...], argument: ast.expr) -> str:
    """Why a Python function that the argument calls gave no type (numba_api.PythonHelper), where that
    is one of the slice's typing errors."""
    called = {
        n.func.id for n in ast.walk(argument) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    for text in errors:
        if any(f"'{name}'" in text for name in called) and ("Python function" in text or "call of" in text):
            return f": {text}"
    return ""


@dataclass
class Probe:
    """One call in a slice: the variables that receive its argument values."""

    site: CallSite
    anchor: ast.stmt
    positional: list[str]
    keywords: dict[str, str]  # keyword -> variable
    expressions: dict[str, ast.expr]  # variable -> the argument expression
    needed: set[str] = field(default_factory=set)
    failure: str | None = None


# What one call gives: (positional argument types, keyword argument types), or why it gives nothing.
Outcome = str | tuple[list[Any], dict[str, Any]]


@dataclass
class SliceResult:
    """Per probe: {variable: type} or a reason it gives nothing."""

    types: dict[int, dict[str, Any]]
    failures: dict[int, str]
    retry_with_copies: bool = False  # the slice must be typed again with every probe copy (see _run)


class CallerSliceTyping:
    """The slice typing of PythonCallerTypes (its base): what the slices read and where they are cached."""

    index: CallIndex
    slices_typed: int
    slices_shared: int
    _cache: dict[str, SliceResult]
    _shapes: dict[tuple[str, tuple[Any, ...]], tuple[numba_api.SliceTyping, tuple[Any, ...]]]
    _module_for: Callable[[str], pytypes.ModuleType | None]
    _fingerprint: Callable[[Any], str]
    _resolver: Callable[[], AbstractContextManager[Any]]
    # the globals read by the callers being typed, innermost last (see caller_memo)
    _reads: list[list[tuple[str, str, str]]]

    def _module_statements(self, tree: ast.Module) -> list[ast.stmt]:
        raise NotImplementedError

    def _globals(self, indexed: IndexedFile, names: set[str]) -> tuple[dict[str, Any], dict[str, str]]:
        """Values for the free names of a slice, and why the others are unknown."""
        values: dict[str, Any] = {"__builtins__": builtins}
        unknown: dict[str, str] = {}
        for name in sorted(names):
            value, why = self._global_value(indexed, name)
            if self._reads:
                self._reads[-1].append((indexed.path, name, self._read_text(value, why)))
            if why is not None:
                unknown[name] = why
                continue
            if numba_api.value_type(value) is None and id(value) not in numba_api.NUMPY_STAND_INS:
                unknown[name] = f"'{name}' is a {type(value).__name__}, which Numba cannot type"
                continue
            values[name] = value
        return values, unknown

    def _read_text(self, value: Any, why: str | None) -> str:
        """What a global read gave, as the slice cache tells values apart."""
        return "unknown:" + why if why is not None else "value:" + self._fingerprint(value)

    def _read_again(self, path: str, name: str) -> str:
        indexed = self.index.files.get(path)
        if indexed is None:
            return "unknown: its file is not indexed"
        return self._read_text(*self._global_value(indexed, name))

    def _global_value(self, indexed: IndexedFile, name: str) -> tuple[Any, str | None]:
        imported = indexed.imports.get(name)
        if imported is not None:
            module, level, attr = imported
            target = self.index.binding(indexed, name)
            if target is not None:
                loaded = self._module_for(target[0])
                if loaded is None:
                    return None, f"'{name}' comes from a workspace module that is not loaded"
                if not target[1]:
                    return numba_api.module_with_helper_stand_ins(loaded), None
                if not hasattr(loaded, target[1]):
                    return None, f"'{name}' is not defined when its module is loaded"
                value = getattr(loaded, target[1])
                return numba_api.python_helper_stand_in(value) or value, None
            if level:
                return None, f"'{name}' comes from a relative import outside the workspace"
            full = module
            loaded_module = sys.modules.get(full)
            if loaded_module is None:
                # Importing it would run it: only modules already imported are used.
                return None, f"'{name}' comes from '{full}', which is not imported by the checked module"
            if attr is None:
                return loaded_module, None
            if hasattr(loaded_module, attr):
                return getattr(loaded_module, attr), None
            submodule = sys.modules.get(f"{full}.{attr}")
            if submodule is not None:
                return submodule, None
            return None, f"'{name}' is not in '{full}'"
        if name in indexed.loaded_jit_names and name not in indexed.top_level_defs:
            # `fast = njit(slow)`, `Point = jitclass(spec)(Point)`: what the module's jit call made
            loaded = self._module_for(indexed.path)
            if loaded is not None and hasattr(loaded, name):
                return getattr(loaded, name), None
            return None, f"'{name}' is not defined when its module is loaded"
        if name in indexed.top_level_defs:
            loaded = self._module_for(indexed.path)
            if loaded is not None and name in indexed.jitted and hasattr(loaded, name):
                return getattr(loaded, name), None
            # A plain Python function of the file: its body typed for the call's argument types
            helper = helper_function(indexed.path, indexed.top_level_defs[name], loaded, indexed.tree)
            if helper is not None:
                return helper, None
            return None, f"'{name}' is a Python function, which Numba cannot type"
        if name in indexed.top_level_classes:
            loaded = self._module_for(indexed.path)
            value = getattr(loaded, name, None) if loaded is not None else None
            if value is not None and numba_api.jitclass_methods(value) is not None:
                return value, None  # a jitclass: Numba types its constructor
            kind = numba_api.numba_class_kind(value) if value is not None else None
            if kind == "structref":
                return value, None  # a StructRef proxy: its instance's type is what its constructor made
            if kind == "extension":
                return None, (
                    f"'{name}' is a class an extension of Numba types (type_callable, typeof_impl): the type "
                    "the dispatcher gives its instances is not derived without running the program"
                )
            return None, f"'{name}' is a Python class, which Numba cannot type"
        if hasattr(builtins, name):
            return getattr(builtins, name), None
        if name in (ITER, NEXT):  # a comprehension_rewrite's
            return (iter if name == ITER else next), None
        return None, f"'{name}' is not defined where the call is"

    def _type_slice(
        self,
        indexed: IndexedFile,
        scope: Scope,
        simple: list[Simple],
        module_simple: list[Simple],
        kept: set[int],
        probes: list[Probe],
        param_types: dict[str, Any],
    ) -> SliceResult:
        in_slice = [s for s in simple + module_simple if id(s.node) in kept]
        parsed = self._argparse_plan(indexed, in_slice, probes)
        covered: dict[int, set[str]] = {}  # statement or probe -> namespaces read only as `args.n`
        if parsed.namespaces:
            in_slice = [s for s in in_slice if id(s.node) not in parsed.dropped]
            kept = kept - parsed.dropped
            covered = {id(s): parsed.covered([s.node]) for s in in_slice}
            # A probe's `needed` holds what the parser's statements read: only what is still read counts.
            still_read = set().union(*(s.reads - covered[id(s)] for s in in_slice))
            for p in probes:
                covered[id(p)] = parsed.covered(p.expressions.values())
                still_read |= {
                    n.id for e in p.expressions.values() for n in ast.walk(e) if isinstance(n, ast.Name)
                }
            for p in probes:
                covered[id(p)] |= parsed.read_by_dropped - still_read
        defined_locally = set(param_types) | {COND}
        reads: set[str] = set()
        for s in in_slice:
            defined_locally |= s.defines | s.opaque
            reads |= s.reads - covered.get(id(s), set())
        for probe in probes:
            reads |= probe.needed - covered.get(id(probe), set())
        free = reads - defined_locally
        enclosing = enclosing_names(indexed, scope) & free
        values, unknown = self._globals(indexed, free - enclosing)
        for name in enclosing:  # a nested function reads its enclosing function's variable, not a global
            unknown[name] = f"'{name}' comes from the function '{scope.qualname}' is nested in"
        for name in parsed.namespaces.keys() & free:
            unknown[name] = parsed.namespaces[name]
        self._cover_builtins(indexed, in_slice, probes, values, unknown, enclosing)
        # Poison: statements reading unknown names are left out; what they define is unknown too.
        poisoned: dict[str, str] = dict(unknown)
        live = set(kept)
        for s in in_slice:
            for name in s.opaque:
                poisoned.setdefault(
                    name, f"'{name}' {s.why} ({os.path.basename(scope.path)}:{s.position[0]})"
                )
        changed = True
        while changed:
            changed = False
            for s in in_slice:
                if id(s.node) not in live:
                    continue
                bad = (s.reads - covered.get(id(s), set())) & set(poisoned)
                if bad:
                    live.discard(id(s.node))
                    for name in s.defines:
                        poisoned.setdefault(name, poisoned[sorted(bad)[0]])
                    changed = True
        failures: dict[int, str] = {}
        for number, probe in enumerate(probes):
            bad = (probe.needed - covered.get(id(probe), set())) & set(poisoned)
            if bad:
                failures[number] = poisoned[sorted(bad)[0]]
        decided = self._decided_tests(indexed, scope, simple, param_types)
        if decided:
            dead = ruled_out(scope.node.body, decided)
            for number, probe in enumerate(probes):
                if id(probe.anchor) in dead:
                    failures.setdefault(number, NEVER_REACHED)
        active = [i for i in range(len(probes)) if i not in failures and not probes[i].failure]
        if not active:
            return SliceResult({}, failures)
        args = (scope, indexed.tree, simple, module_simple, live, probes, active, list(param_types), decided)
        function, left_out = self._synthesize(*args, indexed.has_walrus)
        key_source, values = self._with_stand_ins(function, values, parsed.replacements)
        # What the types depend on besides the slice's text (also the key of typings shared by slices
        # that differ only in numeric constants, see _typing)
        context = "\n".join(
            [
                scope.path,
                left_out.key(),
                repr(sorted((n, self._fingerprint(v)) for n, v in values.items() if n != "__builtins__")),
                repr([(p, str(t)) for p, t in param_types.items()]),
            ]
        )
        key = hashlib.sha256(f"{key_source}\n{context}".encode()).hexdigest()
        cached = self._cache.get(key)
        if cached is None:
            cached = self._run(key_source, context, left_out, values, probes, active, param_types)
            if cached.retry_with_copies:
                function, left_out = self._synthesize(*args, indexed.has_walrus, False)
                text, values = self._with_stand_ins(function, values, parsed.replacements)
                cached = self._run(text, context + "\ncopies", left_out, values, probes, active, param_types)
            self._cache[key] = cached
            while len(self._cache) > SLICE_CACHE_LIMIT:
                self._cache.pop(next(iter(self._cache)))
        merged = dict(cached.failures)
        merged.update(failures)
        return SliceResult(cached.types, merged)

    def _decided_tests(
        self, indexed: IndexedFile, scope: Scope, simple: list[Simple], param_types: dict[str, Any]
    ) -> dict[int, bool]:
        """The caller's `isinstance` tests of its parameters that their types decide (parameter_tests)."""
        if not param_types or scope.qualname == "<module>" or "isinstance" not in indexed.calls:
            return {}
        rebound = set().union(*(s.defines | s.opaque for s in simple))

        def resolve(node: ast.expr) -> Any:
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name) or root.id in rebound or root.id in param_types:
                return None
            value, why = self._global_value(indexed, root.id)
            return None if why is not None else resolved_global(node, {root.id: value})

        return decided_tests(scope.node.body, param_types, rebound, resolve)

    @staticmethod
    def _cover_builtins(
        indexed: IndexedFile,
        in_slice: list[Simple],
        probes: list[Probe],
        values: dict[str, Any],
        unknown: dict[str, str],
        enclosing: set[str],
    ) -> None:
        """Builtins Numba cannot type (`reversed`, `map`) are no obstacle where they are read only inside
        a constructor whose dtype and rank fix its result (substitute_dtypes drops what is inside)."""
        untypable = {
            name: getattr(builtins, name)
            for name in unknown
            if hasattr(builtins, name)
            and name not in indexed.imports
            and name not in indexed.top_level_defs
            and name not in enclosing
        }
        if not untypable:
            return
        roots: list[ast.AST] = [s.node for s in in_slice]
        roots += [e for p in probes for e in p.expressions.values()]
        for name in covered_names(roots, {**values, **untypable}) & set(untypable):
            del unknown[name]
            values[name] = untypable[name]

    @staticmethod
    def _argparse_plan(indexed: IndexedFile, in_slice: list[Simple], probes: list[Probe]) -> ArgparsePlan:
        roots: list[ast.AST] = []
        if any(module == "argparse" for module, _level, _attr in indexed.imports.values()):
            roots = [s.node for s in in_slice] + [e for p in probes for e in p.expressions.values()]
        return ArgparsePlan(roots, indexed)

    @staticmethod
    def _with_stand_ins(
        function: ast.FunctionDef, values: dict[str, Any], replaced: dict[int, tuple[str, Any, bool]]
    ) -> tuple[str, dict[str, Any]]:
        """The slice's text and globals, NumPy calls Numba cannot type replaced by their stand-ins, and
        `replaced` (nodes of the slice by id: (a global's name, its value, whether it is called))."""
        text = ast.unparse(function)
        changed, stand_ins = substitute_stand_ins(function, text, values, numba_api.NUMPY_STAND_INS)
        changed, dtypes = substitute_dtypes(changed, text, {**values, **stand_ins}, replaced)
        spelled = rewrite_numpy_calls(changed, text, values)
        if not stand_ins and not dtypes and spelled is function:
            return text, values
        return ast.unparse(spelled), {**values, **stand_ins, **dtypes}

    def _synthesize(
        self,
        scope: Scope,
        module_tree: ast.Module,
        simple: list[Simple],
        module_simple: list[Simple],
        live: set[int],
        probes: list[Probe],
        active: list[int],
        params: list[str],
        decided: dict[int, bool],
        walrus: bool,
        direct: bool = True,
    ) -> tuple[ast.FunctionDef, LeftOut]:
        """The slice as a function, and the probe copies left out of it (`direct`; see
        leave_out_copies)."""
        probes_at: dict[int, list[ast.stmt]] = {}
        copies: list[ast.Assign] = []
        for number in active:
            probe = probes[number]
            statements = probes_at.setdefault(id(probe.anchor), [])
            for name, expression in probe.expressions.items():
                copy = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=expression, lineno=0)
                statements.append(copy)
                copies.append(copy)
        headers = {id(s.node) for s in simple + module_simple if s.header}
        cond = ast.Name(id=COND, ctx=ast.Load())
        kept_tests = 0  # kept parameter tests (kept_test_of): their branches' probe copies must stay

        def emit(body: list[ast.stmt], in_try: bool = False) -> list[ast.stmt]:
            nonlocal kept_tests
            out: list[ast.stmt] = []
            for stmt in body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue  # never in a slice, never an anchor (most of a module's statements)
                out.extend(probes_at.get(id(stmt), []))
                if isinstance(stmt, ast.Return | ast.Raise) and not in_try:
                    # A path ends here: `if len(t) == 2: return pair(t)` then `triple(t)` calls triple
                    # only where the test fails (in a `try`, a handler may go on: the path stays open)
                    out.append(ast.Return(value=ast.Constant(value=None)))
                elif isinstance(stmt, ast.For | ast.AsyncFor):
                    inner, orelse = emit(stmt.body, in_try), emit(stmt.orelse, in_try)
                    if id(stmt) in live and id(stmt) in headers:
                        out.append(ast.For(stmt.target, stmt.iter, inner or [ast.Pass()], orelse, lineno=0))
                    elif inner or orelse:
                        out.append(ast.While(cond, inner or [ast.Pass()], orelse))
                elif isinstance(stmt, ast.While):
                    inner, orelse = emit(stmt.body, in_try), emit(stmt.orelse, in_try)
                    if inner or orelse:
                        out.append(ast.While(cond, inner or [ast.Pass()], orelse))
                elif isinstance(stmt, ast.If):
                    inner, orelse = emit(stmt.body, in_try), emit(stmt.orelse, in_try)
                    if inner or orelse:
                        test: ast.expr = stmt.test if kept_test_of(stmt.test, params) else cond
                        if id(stmt) in decided:  # Python's compiler drops the branch ruled out
                            test = ast.Constant(value=decided[id(stmt)])
                        kept_tests += test is stmt.test
                        out.append(ast.If(test, inner or [ast.Pass()], orelse))
                elif isinstance(stmt, ast.With | ast.AsyncWith):
                    out.extend(emit(stmt.body, in_try))
                elif isinstance(stmt, TRY_STATEMENTS):
                    out.extend(emit(stmt.body, True))
                    for handler in stmt.handlers:
                        inner = emit(handler.body, True)
                        if inner:
                            out.append(ast.If(cond, inner, []))
                    out.extend(emit(stmt.orelse, True))
                    out.extend(emit(stmt.finalbody, True))
                elif isinstance(stmt, ast.Match):
                    for case in stmt.cases:
                        inner = emit(case.body, in_try)
                        if inner:
                            out.append(ast.If(cond, inner, []))
                elif id(stmt) in live and not isinstance(
                    stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                ):
                    out.append(stmt)
            return out

        body: list[ast.stmt] = []
        if scope.qualname != "<module>":
            body.extend(emit(self._module_statements(module_tree)))
        body.extend(emit(scope.node.body))
        body.append(ast.Return(value=ast.Constant(value=None)))
        arguments = ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=name) for name in [COND, *params]],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        )
        function = ast.FunctionDef(
            name="__lens_slice__", args=arguments, body=body, decorator_list=[], lineno=1
        )
        # A copy left out is typed from what it copies: in a branch that pruning drops, it must stay
        direct = direct and not kept_tests
        return function, (leave_out_copies(function, copies, walrus) if direct else LeftOut())

    def _run(
        self,
        text: str,
        context: str,
        left_out: LeftOut,
        values: dict[str, Any],
        probes: list[Probe],
        active: list[int],
        param_types: dict[str, Any],
    ) -> SliceResult:
        """Type the slice (`text`: its function's source, without the probe copies in `left_out`)."""
        namespace = dict(values)
        try:
            code = compile(text, "<numba-lens python caller>", "exec")
            exec(code, namespace)  # defines the synthetic function only: its body never runs
        except (SyntaxError, ValueError) as exc:
            return SliceResult({}, {i: f"its statements could not be sliced ({exc})" for i in active})
        typing = self._typing(namespace["__lens_slice__"], context, param_types)
        if left_out.aliases and typing.error is None:
            # A local that Numba split into versions (`data`, `data.1`), or that it dropped: the copy is
            # what tells which one the call reads. Not expected: leave_out_copies predicts the versions.
            versioned = {n.rsplit(".", 1)[0] for n in typing.types if n.rsplit(".", 1)[-1].isdigit()}
            if any(local in versioned or local not in typing.types for local in left_out.aliases.values()):
                return SliceResult({}, {}, retry_with_copies=True)
        types: dict[int, dict[str, Any]] = {}
        failures: dict[int, str] = {}
        for number in active:
            probe = probes[number]
            if typing.error is not None:
                failures[number] = (
                    f"Numba cannot type the statements that compute its arguments ({typing.error})"
                )
                continue
            conflicts = sorted(n for n in probe.needed if n in typing.conflicts)
            if conflicts:
                name = conflicts[0]
                # "?1", "?2": values whose type Numba could not find (numba_api.type_python_slice)
                known = [t for t in typing.conflicts[name] if not t.startswith("?")]
                if len(known) == len(typing.conflicts[name]):
                    failures[number] = (
                        f"'{name}' gets different types on different paths ({' or '.join(known)})"
                    )
                else:
                    also = f" ({' or '.join(known)} on another)" if known else ""
                    failures[number] = f"'{name}' gets a value Numba cannot type on one of its paths{also}"
                continue
            found: dict[str, Any] = {}
            for name in probe.expressions:
                local = left_out.aliases.get(name, name)
                ty = left_out.constants[name] if name in left_out.constants else typing.types.get(local)
                if local in typing.mixed_narrow:
                    failures[number] = (
                        f"'{ast.unparse(probe.expressions[name])}' may have another type in Python than in "
                        "Numba (NumPy's promotion of float32/int32/bool values, a list with items of several "
                        "types, max/min of mixed types, a typed List, Dict or Set given items of another "
                        "type or arrays whose layout is decided at run time, a Python dict, the layout of "
                        "NumPy's index arrays of an N-d array: np.nonzero, np.argwhere)"
                    )
                    break
                if typing.pruned and local not in typing.types and name not in left_out.constants:
                    failures[number] = NEVER_REACHED
                    break
                if ty is None or not ty.is_precise() or "undefined" in str(ty) or str(ty) == "unknown":
                    failures[number] = (
                        f"Numba cannot type the expression '{ast.unparse(probe.expressions[name])}' that "
                        "gives the argument, as it types the caller's code without running it"
                        + _helper_failure(typing.errors, probe.expressions[name])
                    )
                    break
                found[name] = ty
            else:
                types[number] = found
        return SliceResult(types, failures)

    def _typing(self, py_func: Any, context: str, param_types: dict[str, Any]) -> numba_api.SliceTyping:
        """The slice's typing, or that of a slice typed before that differs only in numeric constants
        whose values, that typing proved, change no type (SliceTyping.free_constants): callers that pass
        `np.linspace(0, 1, n) * 3` and `... * 4` to the same kernels are typed once."""
        shape, numbers = constant_shape(py_func.__code__)
        shape_key = (context, shape)
        known = self._shapes.get(shape_key)
        if known is not None:
            typing, typed_numbers = known
            if numba_api.same_numba_types(numbers, typed_numbers) and all(
                a == b or (type(a), a) in typing.free_constants
                for a, b in zip(typed_numbers, numbers, strict=True)
            ):
                self.slices_shared += 1
                return typing
        with self._resolver(), numba_api.python_call_types():
            typing = numba_api.type_python_slice(py_func, (numba_api.boolean_type(), *param_types.values()))
        self.slices_typed += 1
        if typing.error is None and typing.free_constants:
            self._shapes[shape_key] = (typing, numbers)
            while len(self._shapes) > SLICE_CACHE_LIMIT:
                self._shapes.pop(next(iter(self._shapes)))
        return typing
