"""Argument types from the Python code that calls a jitted function, typed by Numba, with nothing run.

For a call `kernel(grid, n)` in Python code (a script's top level, `main()`, a `__main__` block,
another module, a test), the statements of the caller that compute the arguments are cut out of its
AST (a backward slice) and compiled as a synthetic function. Numba's own front end and partial type
inference type it (numba_api.type_python_slice); the types of the call's arguments, converted as the
dispatcher would convert the values at run time, give a signature of source "python-caller".

Never a guess: an argument gives no signature when anything it depends on is not fully known: a name
Numba cannot type (file I/O, pandas, a Python helper), a variable that gets different types on
different paths, an operator whose NumPy and Numba promotions may differ, `*args`/`**kwargs`. Where
the slice reads a parameter of the caller, the caller's own Python callers give its types, to a
bounded depth. Branch conditions and loop headers that compute nothing needed become an opaque
`__lens_cond`, so both ways are typed.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import os
import sys
import types as pytypes
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from pyserver import numba_api
from pyserver.analysis.worker.signatures.call_index import CallIndex, CallSite, IndexedFile, Scope
from pyserver.analysis.worker.signatures.caller_probes import (
    LeftOut,
    constant_shape,
    leave_out_copies,
)
from pyserver.analysis.worker.signatures.caller_slices import (
    ITER,
    NEXT,
    Simple,
    close,
    close_by_name,
    comprehension_rewrite,
    constant_default,
    enclosing_names,
    find_anchor,
    flatten,
    inner_scope_failure,
    is_test,
    names_read,
    scopes_around,
    substitute_stand_ins,
)
from pyserver.analysis.worker.signatures.caller_tests import TestParameterTypes

COND = "__lens_cond"
MAX_DEPTH = 2  # parameters of a caller typed from its own callers: this many levels up
MAX_PARAM_TUPLES = 8  # distinct parameter types per caller
MAX_SITES = 200  # call sites of one function that are typed
SLICE_CACHE_LIMIT = 2000


@dataclass(frozen=True)
class CallLink:
    """A Python call that passes a signature's argument types."""

    path: str
    function: str  # the caller's qualified name, "<module>" for the top level
    line: int  # 1-based
    col: int = 0
    end_line: int = 0
    end_col: int = 0


@dataclass
class CallTypes:
    args: tuple[Any, ...]  # as the dispatcher would compile them (defaults folded)
    links: list[CallLink] = field(default_factory=list)


@dataclass
class Findings:
    signatures: list[CallTypes] = field(default_factory=list)
    sites: int = 0  # calls found
    reasons: list[str] = field(default_factory=list)  # why calls gave no types, for the user


# ---------------------------------------------------------------------------------------- slices


@dataclass
class _Probe:
    """One call in a slice: the variables that receive its argument values."""

    site: CallSite
    anchor: ast.stmt
    positional: list[str]
    keywords: dict[str, str]  # keyword -> variable
    expressions: dict[str, ast.expr]  # variable -> the argument expression
    needed: set[str] = field(default_factory=set)
    failure: str | None = None


# What one call gives: (positional argument types, keyword argument types), or why it gives nothing.
_Outcome = str | tuple[list[Any], dict[str, Any]]


@dataclass
class _SliceResult:
    """Per probe: {variable: type} or a reason it gives nothing."""

    types: dict[int, dict[str, Any]]
    failures: dict[int, str]
    retry_with_copies: bool = False  # the slice must be typed again with every probe copy (see _run)


def _site_where(site: CallSite) -> str:
    where = "top level" if site.scope.qualname == "<module>" else f"'{site.scope.qualname}'"
    return f"{os.path.basename(site.scope.path)}:{site.call.lineno} ({where})"


class PythonCallerTypes(TestParameterTypes):
    """Types the Python call sites of workspace functions. One per analyzer; slices are cached."""

    def __init__(self, index: CallIndex) -> None:
        self.index = index
        self._cache: dict[str, _SliceResult] = {}
        # per analysis run, set by `run_context`
        self._module_for: Callable[[str], pytypes.ModuleType | None] = lambda path: None
        self._fingerprint: Callable[[Any], str] = repr
        self._resolver: Callable[[], AbstractContextManager[Any]] = nullcontext
        self._active: set[tuple[str, str]] = set()
        self.slices_typed = 0
        self.slices_shared = 0  # slices given the typing of one that differs only in free constants
        # (context, shape) -> a typing and the numeric constants of the slice typed (see _typing)
        self._shapes: dict[tuple[str, tuple[Any, ...]], tuple[numba_api.SliceTyping, tuple[Any, ...]]] = {}
        # Per analysis run: each caller typed once, with the calls of all workspace functions it makes.
        self._run_memo: dict[tuple[str, str, int], dict[int, list[_Outcome]]] = {}
        self._flat: dict[int, tuple[ast.AST, list[Simple]]] = {}  # id(scope node) -> its statements
        self._bound_by: dict[int, tuple[list[Simple], dict[str, list[Simple]]]] = {}  # see _by_name
        self._statements: dict[int, tuple[ast.Module, list[ast.stmt]]] = {}  # see _module_statements
        # Once per process, at the analyzer's construction (before the worker takes any file): the
        # first file's callers then do not pay for loading the typing of common NumPy calls.
        numba_api.warm_up_python_callers()

    def configure(
        self,
        module_for: Callable[[str], pytypes.ModuleType | None],
        fingerprint: Callable[[Any], str],
        resolver: Callable[[], AbstractContextManager[Any]],
    ) -> None:
        self._module_for = module_for
        self._fingerprint = fingerprint
        self._resolver = resolver
        self._run_memo = {}
        if len(self._flat) > 20000:
            self._flat = {}
        if len(self._statements) > 64:  # each holds a tree: an edited file's old ones go
            self._bound_by = {}
            self._statements = {}

    # -------------------------------------------------------------------------------------- public

    def signatures(self, path: str, function: str, dispatcher: Any) -> Findings:
        """Argument-type tuples that the Python calls of `function` (top level of `path`) pass."""
        findings = Findings()
        sites = self.index.calls_to(path, function)[:MAX_SITES]
        findings.sites = len(sites)
        by_args: dict[tuple[Any, ...], CallTypes] = {}
        for site, outcome in self._type_sites(sites, 0):
            if isinstance(outcome, str):
                findings.reasons.append(f"the call at {_site_where(site)}: {outcome}")
                continue
            positional, keywords = outcome
            converted = [numba_api.dispatcher_arg_type(t) for t in positional]
            converted_kw = {k: numba_api.dispatcher_arg_type(t) for k, t in keywords.items()}
            bad = [str(t) for t, c in zip(positional, converted, strict=True) if c is None]
            bad += [str(t) for k, t in keywords.items() if converted_kw[k] is None]
            undecided = [
                str(t) for t in [*positional, *keywords.values()] if numba_api.array_layout_undecided(t)
            ]
            if undecided:
                findings.reasons.append(
                    f"the call at {_site_where(site)}: it passes {undecided[0]}, an array whose layout (C, F "
                    "or neither) is decided at run time by its shape and strides"
                )
                continue
            if bad:
                findings.reasons.append(
                    f"the call at {_site_where(site)}: an argument of type {bad[0]} is not one the "
                    "dispatcher takes as Numba typed it"
                )
                continue
            folded = numba_api.fold_call_types(dispatcher, tuple(converted), converted_kw)  # type: ignore[arg-type]
            if folded is None:
                findings.reasons.append(
                    f"the call at {_site_where(site)}: its arguments do not fit the parameters"
                )
                continue
            entry = by_args.setdefault(folded, CallTypes(folded))
            link = _link(site)
            if link not in entry.links:
                entry.links.append(link)
        findings.signatures = list(by_args.values())
        return findings

    # ----------------------------------------------------------------------------------- internals

    def _type_sites(self, sites: list[CallSite], depth: int) -> Iterator[tuple[CallSite, _Outcome]]:
        by_scope: dict[tuple[str, str], list[CallSite]] = {}
        for site in sites:
            by_scope.setdefault((site.scope.path, site.scope.qualname), []).append(site)
        for (path, qualname), scope_sites in by_scope.items():
            key = (path, qualname, depth)
            if key not in self._run_memo:
                if (path, qualname) in self._active:
                    for site in scope_sites:
                        yield site, "the caller calls itself (recursion)"
                    continue
                self._active.add((path, qualname))
                try:
                    scope = scope_sites[0].scope
                    every = self._workspace_calls(scope) or scope_sites
                    memo: dict[int, list[_Outcome]] = {}
                    for site, outcome in self._type_scope(scope, every, depth):
                        memo.setdefault(id(site.call), []).append(outcome)
                    self._run_memo[key] = memo
                finally:
                    self._active.discard((path, qualname))
            memo = self._run_memo[key]
            for site in scope_sites:
                for outcome in memo.get(id(site.call), ["the call was not found in its caller"]):
                    yield site, outcome

    def _workspace_calls(self, scope: Scope) -> list[CallSite]:
        """The calls a caller makes to functions of workspace modules (typed together, once)."""
        indexed = self.index.files.get(scope.path)
        if indexed is None:
            return []
        found = []
        for first, candidates in indexed.calls.items():
            bound = self.index.binding(indexed, first)
            if bound is None:
                continue
            for site in candidates:
                if site.scope is not scope:
                    continue
                if (site.name == first and bound[1]) or (site.name != first and not bound[1]):
                    found.append(site)
        found.sort(key=lambda s: (s.call.lineno, s.call.col_offset))
        return found

    def _flattened(
        self, node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef, indexed: IndexedFile
    ) -> list[Simple]:
        cached = self._flat.get(id(node))
        if cached is not None and cached[0] is node:
            return cached[1]
        simple: list[Simple] = []
        # Top-level jitted functions are globals the slice may call (`u = step(u)` in a time loop).
        jitted = (
            frozenset(n for n in indexed.jitted if "." not in n)
            if isinstance(node, ast.Module)
            else frozenset()
        )
        flatten(node.body, (), simple, jitted, indexed.has_walrus)
        self._flat[id(node)] = (node, simple)
        return simple

    def _module_statements(self, tree: ast.Module) -> list[ast.stmt]:
        """A module's statements but its definitions (never in a slice): each function's slice walks them."""
        cached = self._statements.get(id(tree))
        if cached is None or cached[0] is not tree:
            kept = [
                s
                for s in tree.body
                if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            ]
            cached = self._statements[id(tree)] = (tree, kept)
        return cached[1]

    def _by_name(self, module_simple: list[Simple]) -> dict[str, list[Simple]]:
        """The module's statements by the names they bind (close_by_name), once per flattened module."""
        cached = self._bound_by.get(id(module_simple))
        if cached is not None and cached[0] is module_simple:
            return cached[1]
        by_name: dict[str, list[Simple]] = {}
        for s in module_simple:
            for name in s.defines | s.opaque:
                by_name.setdefault(name, []).append(s)
        self._bound_by[id(module_simple)] = (module_simple, by_name)
        return by_name

    def _type_scope(
        self, scope: Scope, sites: list[CallSite], depth: int
    ) -> Iterator[tuple[CallSite, _Outcome]]:
        indexed = self.index.files.get(scope.path)
        if indexed is None:
            for site in sites:
                yield site, "its file could not be read"
            return
        body = scope.node.body
        probes: list[_Probe] = []
        for number, site in enumerate(sites):
            call = site.call
            anchor = site.anchor or find_anchor(body, call)
            rewrite = None  # a call in a comprehension's element: its arguments read the iterables' items
            probe = _Probe(site, anchor or scope.node.body[0], [], {}, {})
            if anchor is None:
                probe.failure = "the call is not in a statement of its caller"
            elif site.anchor is None and (around := scopes_around(anchor, call)):
                rewrite = comprehension_rewrite(around, call)
                probe.failure = inner_scope_failure(scope.node, around, call, rewrite)
            if probe.failure is None and (
                any(isinstance(a, ast.Starred) for a in call.args)
                or any(k.arg is None for k in call.keywords)
            ):
                probe.failure = "it passes *args or **kwargs, whose contents are not known"
            for index, arg in enumerate(call.args):
                name = f"__lens_arg_{number}_{index}"
                probe.positional.append(name)
                probe.expressions[name] = rewrite(arg) if rewrite else arg
            for keyword in call.keywords:
                if keyword.arg is not None:
                    name = f"__lens_kw_{number}_{keyword.arg}"
                    probe.keywords[keyword.arg] = name
                    probe.expressions[name] = rewrite(keyword.value) if rewrite else keyword.value
            probes.append(probe)
        simple = self._flattened(scope.node, indexed)
        module_simple = self._flattened(indexed.tree, indexed) if scope.qualname != "<module>" else []
        kept, needed_by_probe = self._relevant(
            simple, module_simple, probes, scope.params + sorted(enclosing_names(indexed, scope))
        )
        params_read = [p for p in scope.params if any(p in needed for needed in needed_by_probe)]
        if scope.has_var_params and any(
            name in needed
            for needed in needed_by_probe
            for name in (scope.node.args.vararg, scope.node.args.kwarg)  # type: ignore[union-attr]
            if name is not None
        ):
            for probe in probes:
                probe.failure = probe.failure or f"it uses *args/**kwargs of '{scope.qualname}'"
        param_sets: list[tuple[dict[str, Any], str | None]] = [({}, None)]
        if params_read:
            param_sets = self._param_types(scope, params_read, depth)
        for probe, needed in zip(probes, needed_by_probe, strict=True):
            probe.needed = needed
        results: dict[int, list[tuple[list[Any], dict[str, Any]]]] = {i: [] for i in range(len(probes))}
        failures: dict[int, str] = {}
        for param_types, problem in param_sets:
            if problem is not None:
                for i in range(len(probes)):
                    failures.setdefault(i, problem)
                continue
            outcome = self._type_slice(indexed, scope, simple, module_simple, kept, probes, param_types)
            for i, probe in enumerate(probes):
                if probe.failure:
                    failures.setdefault(i, probe.failure)
                    continue
                if i in outcome.failures:
                    failures.setdefault(i, outcome.failures[i])
                    continue
                values = outcome.types[i]
                positional = [values[name] for name in probe.positional]
                keywords = {k: values[v] for k, v in probe.keywords.items()}
                if (positional, keywords) not in results[i]:
                    results[i].append((positional, keywords))
        for i, probe in enumerate(probes):
            if results[i]:
                for found in results[i]:
                    yield probe.site, found
            else:
                yield probe.site, failures.get(i, "nothing could be typed")

    def _relevant(
        self, simple: list[Simple], module_simple: list[Simple], probes: list[_Probe], params: list[str]
    ) -> tuple[set[int], list[set[str]]]:
        """The statements (ids) the probes need, and per probe the names it depends on."""
        kept: set[int] = set()
        needed_by_probe: list[set[str]] = []
        for probe in probes:
            needed: set[str] = set()
            for expression in probe.expressions.values():
                needed |= names_read(expression)
            anchor_position = (probe.anchor.lineno, probe.anchor.col_offset)
            anchor_loops = next((s.loops for s in simple if s.node is probe.anchor), ())
            # Statements before the call, and those of the loops around it (a later iteration reads them).
            candidates = [
                s
                for s in simple
                if s.position < anchor_position or any(loop in anchor_loops for loop in s.loops)
            ]
            close(candidates, needed, kept)
            if module_simple:
                # Names a function reads from its module: the module's statements that define them.
                local = set(params)
                for s in candidates:
                    if id(s.node) in kept:
                        local |= s.defines | s.opaque
                free = needed - local
                close_by_name(self._by_name(module_simple), free, kept)
                needed |= free
            needed_by_probe.append(needed)
        return kept, needed_by_probe

    def _param_types(
        self, scope: Scope, params: list[str], depth: int
    ) -> list[tuple[dict[str, Any], str | None]]:
        what = ", ".join(f"'{p}'" for p in params)
        if depth >= MAX_DEPTH:
            return [({}, f"it passes {what} of '{scope.qualname}', whose callers are too far up to follow")]
        if "." in scope.qualname or scope.qualname == "<module>":
            return [({}, f"it passes {what} of '{scope.qualname}', a method or nested function")]
        if is_test(scope):
            return self._test_param_types(scope, params, depth)
        callers = self.index.calls_to(scope.path, scope.qualname)
        if not callers:
            return [({}, f"it passes {what} of '{scope.qualname}', which nothing in the workspace calls")]
        found: list[tuple[dict[str, Any], str | None]] = []
        problems: list[str] = []
        for site, outcome in self._type_sites(callers[:MAX_SITES], depth + 1):
            if isinstance(outcome, str):
                problems.append(outcome)
                continue
            bound = _bind(scope, outcome[0], outcome[1], site)
            if isinstance(bound, str):
                problems.append(bound)
                continue
            chosen = {p: bound[p] for p in params}
            if all(numba_api.dispatcher_arg_type(t) is not None for t in chosen.values()):
                converted = {p: numba_api.dispatcher_arg_type(t) for p, t in chosen.items()}
                if (converted, None) not in found:
                    found.append((converted, None))
            else:
                problems.append(f"'{scope.qualname}' gets a value Numba cannot pass on")
        if not found:
            reason = problems[0] if problems else "no call types it"
            return [({}, f"it passes {what} of '{scope.qualname}', and {reason}")]
        return found[:MAX_PARAM_TUPLES]

    def _globals(self, indexed: IndexedFile, names: set[str]) -> tuple[dict[str, Any], dict[str, str]]:
        """Values for the free names of a slice, and why the others are unknown."""
        values: dict[str, Any] = {"__builtins__": builtins}
        unknown: dict[str, str] = {}
        for name in sorted(names):
            value, why = self._global_value(indexed, name)
            if why is not None:
                unknown[name] = why
                continue
            if numba_api.value_type(value) is None and id(value) not in numba_api.NUMPY_STAND_INS:
                unknown[name] = f"'{name}' is a {type(value).__name__}, which Numba cannot type"
                continue
            values[name] = value
        return values, unknown

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
                    return loaded, None
                if not hasattr(loaded, target[1]):
                    return None, f"'{name}' is not defined when its module is loaded"
                return getattr(loaded, target[1]), None
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
        if name in indexed.top_level_defs:
            loaded = self._module_for(indexed.path)
            if loaded is not None and name in indexed.jitted and hasattr(loaded, name):
                return getattr(loaded, name), None
            return None, f"'{name}' is a Python function, which Numba cannot type"
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
        probes: list[_Probe],
        param_types: dict[str, Any],
    ) -> _SliceResult:
        in_slice = [s for s in simple + module_simple if id(s.node) in kept]
        defined_locally = set(param_types) | {COND}
        reads: set[str] = set()
        for s in in_slice:
            defined_locally |= s.defines | s.opaque
            reads |= s.reads
        for probe in probes:
            reads |= probe.needed
        free = reads - defined_locally
        enclosing = enclosing_names(indexed, scope) & free
        values, unknown = self._globals(indexed, free - enclosing)
        for name in enclosing:  # a nested function reads its enclosing function's variable, not a global
            unknown[name] = f"'{name}' comes from the function '{scope.qualname}' is nested in"
        # Poison: statements reading unknown names are left out; what they define is unknown too.
        poisoned: dict[str, str] = dict(unknown)
        live = set(kept)
        for s in in_slice:
            for name in s.opaque:
                poisoned.setdefault(name, f"'{name}' {s.why} (line {s.position[0]})")
        changed = True
        while changed:
            changed = False
            for s in in_slice:
                if id(s.node) not in live:
                    continue
                bad = s.reads & set(poisoned)
                if bad:
                    live.discard(id(s.node))
                    for name in s.defines:
                        poisoned.setdefault(name, poisoned[sorted(bad)[0]])
                    changed = True
        failures: dict[int, str] = {}
        for number, probe in enumerate(probes):
            bad = probe.needed & set(poisoned)
            if bad:
                failures[number] = poisoned[sorted(bad)[0]]
        active = [i for i in range(len(probes)) if i not in failures and not probes[i].failure]
        if not active:
            return _SliceResult({}, failures)
        args = (scope, indexed.tree, simple, module_simple, live, probes, active, list(param_types))
        function, left_out = self._synthesize(*args, indexed.has_walrus)
        key_source, values = self._with_stand_ins(function, values)
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
                text, values = self._with_stand_ins(function, values)
                cached = self._run(text, context + "\ncopies", left_out, values, probes, active, param_types)
            self._cache[key] = cached
            while len(self._cache) > SLICE_CACHE_LIMIT:
                self._cache.pop(next(iter(self._cache)))
        merged = dict(cached.failures)
        merged.update(failures)
        return _SliceResult(cached.types, merged)

    @staticmethod
    def _with_stand_ins(function: ast.FunctionDef, values: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The slice's text and globals, NumPy calls Numba cannot type replaced by their stand-ins."""
        text = ast.unparse(function)
        changed, stand_ins = substitute_stand_ins(function, text, values, numba_api.NUMPY_STAND_INS)
        if not stand_ins:
            return text, values
        return ast.unparse(changed), {**values, **stand_ins}

    def _synthesize(
        self,
        scope: Scope,
        module_tree: ast.Module,
        simple: list[Simple],
        module_simple: list[Simple],
        live: set[int],
        probes: list[_Probe],
        active: list[int],
        params: list[str],
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

        def emit(body: list[ast.stmt]) -> list[ast.stmt]:
            out: list[ast.stmt] = []
            for stmt in body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue  # never in a slice, never an anchor (most of a module's statements)
                out.extend(probes_at.get(id(stmt), []))
                if isinstance(stmt, ast.For | ast.AsyncFor):
                    inner, orelse = emit(stmt.body), emit(stmt.orelse)
                    if id(stmt) in live and id(stmt) in headers:
                        out.append(ast.For(stmt.target, stmt.iter, inner or [ast.Pass()], orelse, lineno=0))
                    elif inner or orelse:
                        out.append(ast.While(cond, inner or [ast.Pass()], orelse))
                elif isinstance(stmt, ast.While):
                    inner, orelse = emit(stmt.body), emit(stmt.orelse)
                    if inner or orelse:
                        out.append(ast.While(cond, inner or [ast.Pass()], orelse))
                elif isinstance(stmt, ast.If):
                    inner, orelse = emit(stmt.body), emit(stmt.orelse)
                    if inner or orelse:
                        out.append(ast.If(cond, inner or [ast.Pass()], orelse))
                elif isinstance(stmt, ast.With | ast.AsyncWith):
                    out.extend(emit(stmt.body))
                elif isinstance(stmt, ast.Try):
                    out.extend(emit(stmt.body))
                    for handler in stmt.handlers:
                        inner = emit(handler.body)
                        if inner:
                            out.append(ast.If(cond, inner, []))
                    out.extend(emit(stmt.orelse))
                    out.extend(emit(stmt.finalbody))
                elif isinstance(stmt, ast.Match):
                    for case in stmt.cases:
                        inner = emit(case.body)
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
        return function, (leave_out_copies(function, copies, walrus) if direct else LeftOut())

    def _run(
        self,
        text: str,
        context: str,
        left_out: LeftOut,
        values: dict[str, Any],
        probes: list[_Probe],
        active: list[int],
        param_types: dict[str, Any],
    ) -> _SliceResult:
        """Type the slice (`text`: its function's source, without the probe copies in `left_out`)."""
        namespace = dict(values)
        try:
            code = compile(text, "<numba-lens python caller>", "exec")
            exec(code, namespace)  # defines the synthetic function only: its body never runs
        except (SyntaxError, ValueError) as exc:
            return _SliceResult({}, {i: f"its statements could not be sliced ({exc})" for i in active})
        typing = self._typing(namespace["__lens_slice__"], context, param_types)
        if left_out.aliases and typing.error is None:
            # A local that Numba split into versions (`data`, `data.1`), or that it dropped: the copy is
            # what tells which one the call reads. Not expected: leave_out_copies predicts the versions.
            versioned = {n.rsplit(".", 1)[0] for n in typing.types if n.rsplit(".", 1)[-1].isdigit()}
            if any(local in versioned or local not in typing.types for local in left_out.aliases.values()):
                return _SliceResult({}, {}, retry_with_copies=True)
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
                        "types, max/min of mixed types)"
                    )
                    break
                if ty is None or not ty.is_precise() or "undefined" in str(ty) or str(ty) == "unknown":
                    failures[number] = (
                        f"Numba cannot type the argument '{ast.unparse(probe.expressions[name])}'"
                    )
                    break
                found[name] = ty
            else:
                types[number] = found
        return _SliceResult(types, failures)

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


def _bind(
    scope: Scope, positional: list[Any], keywords: dict[str, Any], site: CallSite
) -> dict[str, Any] | str:
    """Parameter -> type for a call of a Python function (defaults that are constants included)."""
    node = scope.node
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    names = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
    if len(positional) > len(names):
        return f"'{scope.qualname}' is called with more arguments than it has parameters"
    bound: dict[str, Any] = dict(zip(names, positional, strict=False))
    for key, value in keywords.items():
        bound[key] = value
    for param in scope.params:
        if param not in bound:
            default = scope.defaults.get(param)
            if default is None or not constant_default(default):
                return f"'{scope.qualname}' leaves '{param}' to a default that is not a constant"
            value = numba_api.constant_type(ast.literal_eval(default))
            if value is None:
                return f"the default of '{param}' has no Numba type"
            bound[param] = value
    return bound


def _link(site: CallSite) -> CallLink:
    call = site.call
    return CallLink(
        site.scope.path,
        site.scope.qualname,
        call.lineno,
        call.col_offset,
        call.end_lineno or call.lineno,
        call.end_col_offset or 0,
    )
