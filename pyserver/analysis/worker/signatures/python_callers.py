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
import os
import types as pytypes
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from pyserver import numba_api
from pyserver.analysis.worker.signatures.call_index import CallIndex
from pyserver.analysis.worker.signatures.caller_memo import CallerMemo, Place, place, scope_key
from pyserver.analysis.worker.signatures.caller_slices import (
    Simple,
    bind_call,
    close,
    close_by_name,
    comprehension_rewrite,
    enclosing_names,
    find_anchor,
    flatten,
    inner_scope_failure,
    is_test,
    names_read,
    scopes_around,
)
from pyserver.analysis.worker.signatures.caller_tests import TestParameterTypes
from pyserver.analysis.worker.signatures.indexed_file import CallSite, IndexedFile, Scope
from pyserver.analysis.worker.signatures.slice_typing import (
    CallerSliceTyping,
    Outcome,
    Probe,
    SliceResult,
)

MAX_DEPTH = 2  # parameters of a caller typed from its own callers: this many levels up
MAX_PARAM_TUPLES = 8  # distinct parameter types per caller
MAX_SITES = 200  # call sites of one function that are typed


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
    # per call, the literal each positional argument's value is where Numba typed it as one (a constant
    # `2`: Literal[int](2)), else None: a `numba.literally` in the function compiles for those (where
    # every call's requested arguments are literals)
    literal_forms: list[tuple[Any, ...]] = field(default_factory=list)


@dataclass
class Findings:
    signatures: list[CallTypes] = field(default_factory=list)
    sites: int = 0  # calls found
    reasons: list[str] = field(default_factory=list)  # why calls gave no types, for the user


def _site_where(site: CallSite) -> str:
    where = "top level" if site.scope.qualname == "<module>" else f"'{site.scope.qualname}'"
    return f"{os.path.basename(site.scope.path)}:{site.call.lineno} ({where})"


class PythonCallerTypes(CallerSliceTyping, TestParameterTypes):
    """Types the Python call sites of workspace functions. One per analyzer; slices are cached."""

    def __init__(self, index: CallIndex) -> None:
        self.index = index
        self._cache: dict[str, SliceResult] = {}
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
        # (caller file, caller, depth, method) -> each typed call's outcomes, and the calls typed together
        self._run_memo: dict[tuple[str, str, int, str], tuple[dict[int, list[Outcome]], list[CallSite]]] = {}
        self._flat: dict[int, tuple[ast.AST, list[Simple]]] = {}  # id(scope node) -> its statements
        self._bound_by: dict[int, tuple[list[Simple], dict[str, list[Simple]]]] = {}  # see _by_name
        self._statements: dict[int, tuple[ast.Module, list[ast.stmt]]] = {}  # see _module_statements
        # Across runs: callers whose code and globals did not change keep their outcomes (caller_memo).
        self.kept = CallerMemo()
        self._reads: list[list[tuple[str, str, str]]] = []
        self._param_lookups = 0  # callers whose parameters were typed from their own callers, so far
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

    def signatures(
        self, path: str, function: str, dispatcher: Any, leading: tuple[Any, ...] = ()
    ) -> Findings:
        """Argument-type tuples that the Python calls of `function` (top level of `path`) pass; `leading`:
        types the dispatcher's function takes before the call's arguments (a jitclass's instance, for
        its constructor's calls)."""
        first_line = getattr(
            getattr(numba_api.dispatcher_py_func(dispatcher), "__code__", None), "co_firstlineno", 0
        )
        sites = self.index.calls_to(path, function, first_line)
        return self._call_signatures(sites[:MAX_SITES], dispatcher, leading)

    def static_method_signatures(self, path: str, cls: str, method: str, dispatcher: Any) -> Findings:
        """Argument-type tuples that the Python calls of a jitted static method of a plain class pass
        (`Kernel.scale(x, 2.0)`, `self.scale(...)` in the class's methods): CallIndex.static_method_calls."""
        return self._call_signatures(
            self.index.static_method_calls(path, cls, method)[:MAX_SITES], dispatcher
        )

    def _call_signatures(
        self, sites: list[CallSite], dispatcher: Any, leading: tuple[Any, ...] = ()
    ) -> Findings:
        findings = Findings()
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
                # Numba typed the expression; what the dispatcher makes of the value at run time (its
                # typeof) is derived only for the kinds of values dispatcher_arg_type knows
                findings.reasons.append(
                    f"the call at {_site_where(site)}: it passes an argument that Numba types as {bad[0]}, "
                    "a kind of value whose type at the dispatcher (numba.typeof of it) is not derived "
                    "without running the program"
                )
                continue
            folded = numba_api.fold_call_types(dispatcher, (*leading, *converted), converted_kw)  # type: ignore[arg-type]
            if folded is None:
                findings.reasons.append(
                    f"the call at {_site_where(site)}: its arguments do not fit the parameters"
                )
                continue
            entry = by_args.setdefault(folded, CallTypes(folded))
            link = _link(site)
            if link not in entry.links:
                entry.links.append(link)
            form = tuple(t if numba_api.is_literal(t) else None for t in (*leading, *positional))
            if form not in entry.literal_forms:
                entry.literal_forms.append(form)
        findings.signatures = list(by_args.values())
        return findings

    def ufunc_loop_signatures(
        self, path: str, function: str, nin: int, core: tuple[list[int], list[int]] | None = None
    ) -> Findings:
        """The loop a lazy `@vectorize` ufunc (no signatures) compiles for its Python calls: each input's
        element type (an array's dtype, a scalar as NumPy makes it an array). Only when every call asks
        for the same loop: with several, which ones compile depends on the order of the calls (a later
        call that an earlier loop can take by casting compiles nothing). A dynamic gufunc's (`core`: its
        layout's core dimensions) is called with its outputs too, and compiles its kernel for them."""
        findings = Findings()
        sites = self.index.calls_to(path, function)[:MAX_SITES]
        findings.sites = len(sites)
        loops: dict[tuple[Any, ...], CallTypes] = {}
        for site, outcome in self._type_sites(sites, 0):
            if isinstance(outcome, str):
                findings.reasons.append(f"the call at {_site_where(site)}: {outcome}")
                continue
            positional, keywords = outcome
            if core is not None and set(keywords) == {"out"}:
                positional, keywords = [*positional, keywords["out"]], {}
            if keywords or len(positional) != (nin if core is None else sum(map(len, core))):
                findings.reasons.append(
                    f"the call at {_site_where(site)}: it passes keywords or outputs, not only the inputs"
                    if core is None
                    else f"the call at {_site_where(site)}: it does not pass every input and output"
                )
                continue
            loop = tuple(numba_api.ufunc_loop_arg_type(t) for t in positional)
            if core is not None and all(t is not None for t in loop):
                loop = numba_api.gufunc_kernel_types(loop, *core)
            if any(t is None for t in loop):
                findings.reasons.append(
                    f"the call at {_site_where(site)}: an input is not an array or a number of a known type"
                )
                continue
            entry = loops.setdefault(loop, CallTypes(loop))
            link = _link(site)
            if link not in entry.links:
                entry.links.append(link)
        if len(loops) > 1:
            findings.reasons.append(
                "its calls ask for several loops, and which of them compile depends on the order of the calls"
            )
            return findings
        findings.signatures = list(loops.values())
        return findings

    def method_signatures(
        self, method: str, dispatcher: Any, instance_type: Any, static: bool = False
    ) -> Findings:
        """Argument-type tuples (the instance first) that the Python calls of a jitclass's method pass,
        from the calls of a method of that name whose receiver Numba types as `instance_type`. A static
        method (`static`) takes no instance, and is called on the instance or on the class
        (`Bag.add(1, 2)`)."""
        findings = Findings()
        by_args: dict[tuple[Any, ...], CallTypes] = {}
        for site, outcome in self._type_sites(self.index.method_calls(method)[:MAX_SITES], 0, method):
            if isinstance(outcome, str):
                continue  # most are calls of another class's method of that name
            positional, keywords = outcome
            if not positional or not (
                positional[0] == instance_type
                or (static and numba_api.jitclass_class_of(positional[0]) == instance_type)
            ):
                continue
            findings.sites += 1
            converted = [numba_api.dispatcher_arg_type(t) for t in positional[1:]]
            converted_kw = {k: numba_api.dispatcher_arg_type(t) for k, t in keywords.items()}
            if any(c is None for c in [*converted, *converted_kw.values()]) or any(
                numba_api.array_layout_undecided(t) for t in [*positional[1:], *keywords.values()]
            ):
                continue
            leading = () if static else (instance_type,)
            folded = numba_api.fold_call_types(dispatcher, (*leading, *converted), converted_kw)  # type: ignore[arg-type]
            if folded is None:
                continue
            entry = by_args.setdefault(folded, CallTypes(folded))
            link = _link(site)
            if link not in entry.links:
                entry.links.append(link)
        findings.signatures = list(by_args.values())
        return findings

    # ----------------------------------------------------------------------------------- internals

    def _type_sites(
        self, sites: list[CallSite], depth: int, method: str = ""
    ) -> Iterator[tuple[CallSite, Outcome]]:
        """`method`: the sites are the calls of a method of that name (receiver first), typed apart from
        the caller's other calls."""
        by_scope: dict[tuple[str, str], list[CallSite]] = {}
        for site in sites:
            by_scope.setdefault((site.scope.path, site.scope.qualname), []).append(site)
        for (path, qualname), scope_sites in by_scope.items():
            key = (path, qualname, depth, method)
            known = self._run_memo.get(key)
            typed = {id(s.call) for s in known[1]} if known is not None else set()
            missing = [s for s in scope_sites if id(s.call) not in typed]
            if missing:
                if (path, qualname) in self._active:
                    for site in scope_sites:
                        yield site, "the caller calls itself (recursion)"
                    continue
                self._active.add((path, qualname))
                try:
                    scope = scope_sites[0].scope
                    # The caller's calls are typed together, once: its calls of workspace functions, and
                    # the calls asked for that are not among them (a static method's `self.deflect(...)`).
                    if known is not None:
                        every = list(known[1])
                    else:
                        every = [] if method else list(self._workspace_calls(scope))
                    listed = {id(s.call) for s in every}
                    every += [s for s in missing if id(s.call) not in listed]
                    by_place = self._typed_scope(scope, every, depth, method)
                    memo: dict[int, list[Outcome]] = {}
                    for site in every:
                        if place(site.call) in by_place:
                            memo[id(site.call)] = by_place[place(site.call)]
                    self._run_memo[key] = (memo, every)
                finally:
                    self._active.discard((path, qualname))
            memo = self._run_memo[key][0]
            for site in scope_sites:
                for outcome in memo.get(id(site.call), ["the call was not found in its caller"]):
                    yield site, outcome

    def _typed_scope(
        self, scope: Scope, sites: list[CallSite], depth: int, method: str
    ) -> dict[Place, list[Outcome]]:
        """What typing the caller gives its calls, by the call's place: kept from an earlier run while
        what decides it is unchanged (caller_memo), else typed now."""
        indexed = self.index.files.get(scope.path)
        key = scope_key(indexed, scope, sites, depth, method) if indexed is not None else None
        if key is not None:
            kept = self.kept.get(key, self._read_again)
            if kept is not None:
                return kept
        outcomes: dict[Place, list[Outcome]] = {}
        self._reads.append([])
        lookups = self._param_lookups
        try:
            for site, outcome in self._type_scope(scope, sites, depth):
                outcomes.setdefault(place(site.call), []).append(outcome)
        finally:
            reads = self._reads.pop()
        if key is not None and self._param_lookups == lookups:
            self.kept.keep(key, reads, outcomes)
        return outcomes

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
            home = self.index.files.get(bound[0]) if bound[1] else None
            of_class = home is not None and bound[1] in home.top_level_classes  # `Profile.deflect(...)`
            for site in candidates:
                if site.scope is not scope:
                    continue
                if (site.name == first and bound[1]) or (site.name != first and (not bound[1] or of_class)):
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
        # A jitclass (a class whose methods are jitted) too: Numba types its constructor. And plain
        # functions, whose bodies Numba types for the call (slice_typing: helper_function). And the
        # module's classes: slice_typing says which of them Numba types (a StructRef proxy does).
        module = isinstance(node, ast.Module)
        jitted = (
            frozenset(n if "." not in n else n.split(".")[0] for n in indexed.jitted if n.count(".") <= 1)
            | {s.name for s in node.body if isinstance(s, ast.FunctionDef) and not s.decorator_list}
            | indexed.loaded_jit_names
            | indexed.top_level_classes
            if module
            else frozenset()
        )
        loaded = indexed.loaded_jit_names if module else frozenset()
        flatten(node.body, (), simple, jitted, indexed.has_walrus, loaded)
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
    ) -> Iterator[tuple[CallSite, Outcome]]:
        indexed = self.index.files.get(scope.path)
        if indexed is None:
            for site in sites:
                yield site, "its file could not be read"
            return
        body = scope.node.body
        probes: list[Probe] = []
        for number, site in enumerate(sites):
            call = site.call
            anchor = site.anchor or find_anchor(body, call)
            rewrite = None  # a call in a comprehension's element: its arguments read the iterables' items
            probe = Probe(site, anchor or scope.node.body[0], [], {}, {})
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
            if site.receiver and isinstance(call.func, ast.Attribute):
                probe.positional.append(f"__lens_self_{number}")
                probe.expressions[f"__lens_self_{number}"] = call.func.value
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
        local_names = scope.params + sorted(enclosing_names(indexed, scope))
        kept, needed_by_probe = self._relevant(simple, module_simple, probes, local_names)
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
        for probe, needed in zip(probes, needed_by_probe, strict=True):
            probe.needed = needed
        typed = list(range(len(probes)))  # the probes the slice types
        if params_read:
            param_sets = self._param_types(scope, params_read, depth)
            free = [i for i, needed in enumerate(needed_by_probe) if not needed.intersection(params_read)]
            if free and all(problem is not None for _, problem in param_sets):
                # The parameters' types are unknown: only the calls that read them give nothing; the others
                # (`self.deflect(np.ones((2, 3)), 0.5)` beside `g = grid(n)`) are typed without them.
                for i, probe in enumerate(probes):
                    if i not in free:
                        probe.failure = probe.failure or param_sets[0][1]
                typed = free
                kept, _ = self._relevant(simple, module_simple, [probes[i] for i in free], local_names)
                param_sets = [({}, None)]
        results: dict[int, list[tuple[list[Any], dict[str, Any]]]] = {i: [] for i in range(len(probes))}
        failures: dict[int, str] = {i: p.failure for i, p in enumerate(probes) if p.failure}
        for param_types, problem in param_sets:
            if problem is not None:
                for i in range(len(probes)):
                    failures.setdefault(i, problem)
                continue
            sliced = [probes[i] for i in typed]
            outcome = self._type_slice(indexed, scope, simple, module_simple, kept, sliced, param_types)
            for j, i in enumerate(typed):
                probe = probes[i]
                if probe.failure:
                    failures.setdefault(i, probe.failure)
                    continue
                if j in outcome.failures:
                    failures.setdefault(i, outcome.failures[j])
                    continue
                values = outcome.types[j]
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
        self, simple: list[Simple], module_simple: list[Simple], probes: list[Probe], params: list[str]
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
        self._param_lookups += 1
        of = f"{'a parameter' if len(params) == 1 else 'parameters'} of '{scope.qualname}'"
        what = ", ".join(f"'{p}'" for p in params) + f" ({of})"
        if depth >= MAX_DEPTH:
            return [({}, f"it passes {what}, whose callers are too far up to follow")]
        if "." in scope.qualname or scope.qualname == "<module>":
            return [({}, f"it passes {what}, a method or nested function")]
        if is_test(scope):
            return self._test_param_types(scope, params, depth)
        callers = self.index.calls_to(scope.path, scope.qualname)
        if not callers:
            return [({}, f"it passes {what}, which nothing in the workspace calls")]
        found: list[tuple[dict[str, Any], str | None]] = []
        problems: list[str] = []
        for site, outcome in self._type_sites(callers[:MAX_SITES], depth + 1):
            if isinstance(outcome, str):
                problems.append(f"its call at {_site_where(site)} gives no types: {outcome}")
                continue
            bound = bind_call(scope, outcome[0], outcome[1])
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
            return [({}, f"it passes {what}, and {reason}")]
        return found[:MAX_PARAM_TUPLES]


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
