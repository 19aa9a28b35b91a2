"""Definitions-only loading: the top-level statements that defining a module's jitted functions needs.

A dependency slice over the module's top-level statements, from the AST alone (nothing runs here):
- always run: imports, decorated `def`s and `class`es (`@njit`, `@overload(...)`, `@jitclass(spec)`, a
  library's own jit wrapper; their decorators, defaults and annotations run with them), the other `def`s
  and `class`es when running them costs nothing (no call but their decorators' own, nothing read that
  a call computes: slice_units), the process's set-up (environment: `sys.path` edits, `os.environ[...]
  = ...`, `numba.config.X = ...`, `warnings` filters, `builtins.X = ...`), and statements that make
  jitted functions (`step = numba.njit(step_py)`, `kernel = guvectorize(...)(f)`, `g = my_jit(g_py)`
  with a decorator the file uses);
- run when needed: any statement that binds (or mutates) a name that a statement already kept reads,
  or that the body of a jitted function, a decorated function or a needed function reads, transitively
  (a test's `def` whose `@pytest.mark.parametrize` cases call the package's functions, too); `if`/`try`
  blocks around such statements run with them (their tests, handlers and `raise`s too, and the probes of
  a `try`'s body that decide whether its handlers run: `try: _SETUP_` / `except NameError:`); a loop or a
  `with` block runs whole when it binds a needed name;
- never run: `if __name__ == "__main__":` blocks, and everything else (bare calls, prints, plots,
  loops that define nothing needed). This is what JET.jl does for Julia: interpret definitions.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import copy
import re
import sys
import weakref
from dataclasses import dataclass, field

from pyserver.analysis.model import SkippedStatement
from pyserver.analysis.worker.discover.discovery import ImportNames, dotted_name
from pyserver.analysis.worker.discover.discovery import statements_shallow as discovery_statements
from pyserver.analysis.worker.discover.makes_jitted import NUMBA_BUILDERS, shim_builders
from pyserver.analysis.worker.load.decorated import has_decorated_methods, is_decorated, is_plain_decorator
from pyserver.analysis.worker.load.effects import EffectScanner
from pyserver.analysis.worker.load.environment import sets_up_environment
from pyserver.analysis.worker.load.names import (
    DYNAMIC_NAMES,
    assigned_names,
    body_reads,
    bound_names,
    called_on,
    definition_reads,
    loads,
    namespace_writes,
    root_name,
    stored_names,
)
from pyserver.analysis.worker.load.slice_units import Unit, settle_definitions, unavailable_names
from pyserver.caches import BoundedCache, bounded_cache
from pyserver.pysource import decorator_aliases, statements_in

# ast.TryStar (except*) exists from Python 3.11 on.
if sys.version_info >= (3, 11):
    _TRIES = (ast.Try, ast.TryStar)
else:
    _TRIES = (ast.Try,)

JIT_BUILDERS = NUMBA_BUILDERS  # Numba's builders of jitted functions (last part of the name)
_BUILTIN_NAMES = frozenset(vars(builtins))


@dataclass
class TopLevelSlice:
    tree: ast.Module  # the kept statements (a copy: the input tree is not changed)
    skipped: list[SkippedStatement] = field(default_factory=list)
    future_flags: int = 0  # compiler flags of the module's `from __future__` imports
    # needed names that only statements run for their effects define: name -> why it has no value
    unavailable: dict[str, str] = field(default_factory=dict)


def _definition_time_nodes(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """What a `def` evaluates when it runs: decorators, defaults and annotations, not its body."""
    parts: list[ast.AST] = [*node.decorator_list, *node.args.defaults]
    parts += [d for d in node.args.kw_defaults if d is not None]
    for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
        if arg.annotation is not None:
            parts.append(arg.annotation)
    for extra in (node.args.vararg, node.args.kwarg):
        if extra is not None and extra.annotation is not None:
            parts.append(extra.annotation)
    if node.returns is not None:
        parts.append(node.returns)
    return parts


def _class_time_nodes(
    node: ast.ClassDef,
) -> tuple[list[ast.AST], list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(what a `class` statement evaluates when it runs, its methods)."""
    now: list[ast.AST] = [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
    later: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            now.extend(_definition_time_nodes(item))
            later.append(item)
        elif isinstance(item, ast.ClassDef):
            inner_now, inner_later = _class_time_nodes(item)
            now.extend(inner_now)
            later.extend(inner_later)
        else:
            now.append(item)
    return now, later


def is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


@dataclass(frozen=True)
class _DefinitionFacts:
    """What a `def` or `class` statement reads and does, from its text alone."""

    reads: frozenset[str]  # names its code reads when it runs
    in_strings: frozenset[str]  # names only strings it evaluates then name (`@njit("f8(Arr)")`, `x: "Vec"`)
    later_reads: frozenset[str]  # names its body (a class's methods' bodies) reads
    calls: bool  # running it calls anything but its decorators


# Statement text -> its facts: they depend on its text alone, so after an edit only the definitions that
# changed are walked again.
_DEFINITION_FACTS: BoundedCache[str, _DefinitionFacts] = bounded_cache(
    "toplevel_slice.definition_names", 4096
)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the line breaks Python counts (str.splitlines has more)


def _definition_facts(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str] | None
) -> _DefinitionFacts:
    key = None
    if lines is not None and node.end_lineno is not None and node.end_lineno <= len(lines):
        # A def or class starts its first line and nothing but a comment follows it on its last, so
        # these whole lines are its text.
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        key = "\n".join(lines[first - 1 : node.end_lineno])
        cached = _DEFINITION_FACTS.get(key)
        if cached is not None:
            return cached
    if isinstance(node, ast.ClassDef):
        later_reads: set[str] = set().union(*(body_reads(method) for method in _class_time_nodes(node)[1]))
    else:
        later_reads = body_reads(node)
    reads, in_strings, makes_calls = definition_reads(node)
    facts = _DefinitionFacts(frozenset(reads), frozenset(in_strings), frozenset(later_reads), makes_calls)
    if key is not None:
        _DEFINITION_FACTS[key] = facts
    return facts


def definition_names(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str] | None
) -> tuple[set[str], set[str]]:
    """(names read when the statement runs, names read later by its body or its methods' bodies)."""
    facts = _definition_facts(node, lines)
    return set(facts.reads | facts.in_strings), set(facts.later_reads)


# top-level statement -> what _definitions_in found in it (incremental parsing keeps unchanged nodes)
_DEFINITIONS_IN: weakref.WeakKeyDictionary[
    ast.stmt, tuple[tuple[tuple[str, tuple[str, ...]], ...], frozenset[str], frozenset[str]]
] = weakref.WeakKeyDictionary()


def _definitions_in(
    top: ast.stmt,
) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], frozenset[str], frozenset[str]]:
    """In one top-level statement: the `global` names of each top-level function, the names of defs and
    classes, and the decorators (dotted) that are not plain ones."""
    found = _DEFINITIONS_IN.get(top)
    if found is None:
        sets_globals: list[tuple[str, tuple[str, ...]]] = []
        def_names: set[str] = set()
        decorator_names: set[str] = set()
        for node, enclosing in statements_in([top]):
            if isinstance(node, ast.Global) and enclosing is not None:
                sets_globals.append((enclosing, tuple(node.names)))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                def_names.add(node.name)
                for decorator in node.decorator_list:
                    target = decorator.func if isinstance(decorator, ast.Call) else decorator
                    dotted = dotted_name(target)
                    if dotted and not is_plain_decorator(target):
                        decorator_names.add(dotted)
        found = _DEFINITIONS_IN[top] = (tuple(sets_globals), frozenset(def_names), frozenset(decorator_names))
    return found


class _Slicer:
    def __init__(self, tree: ast.Module, keep_assignments: bool, source: str | None = None) -> None:
        self.lines = _LINE_BREAK.split(source) if source is not None else None
        self.aliases = ImportNames(tree)
        self.keep_assignments = keep_assignments
        self.def_names: set[str] = set()
        # decorators the file uses (a library's own jit wrapper), and a package's jit shim named like
        # Numba's builder (`from .compat import jit`): what they make of a function is jitted
        self.decorator_names: set[str] = set(shim_builders(tree))
        # function -> the module globals its body assigns (`global TABLE`): calling it sets them
        self.sets_globals: dict[str, set[str]] = {}
        for top in tree.body:
            sets_globals, def_names, decorator_names = _definitions_in(top)
            for enclosing, names in sets_globals:
                self.sets_globals.setdefault(enclosing, set()).update(names)
            self.def_names.update(def_names)
            self.decorator_names.update(decorator_names)
        self.plain_decorators = decorator_aliases(tree, is_plain_decorator)  # `slow = pytest.mark.slow`
        self.effects = EffectScanner(tree, self.aliases, self._jitted_names(tree), assigned_names(tree))

    def _jitted_names(self, tree: ast.Module) -> set[str]:
        """Module functions that calling at the top level would run jitted code: decorated ones (other than
        by plain decorators) and the names a jit builder statement binds."""
        names: set[str] = set()
        for node in discovery_statements(tree.body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if is_decorated(node, self.plain_decorators):  # a jitclass instance made compiles it
                    names.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign) and self.makes_jitted(node.value):
                names |= bound_names(node)
        return names

    # ---- what kind of statement -------------------------------------------------------------------
    def is_jit_builder(self, func: ast.expr) -> bool:
        qualified = self.aliases.resolve(func, keep_unknown=True)
        if qualified is None:
            return False
        return qualified.split(".")[0] == "numba" and qualified.split(".")[-1] in JIT_BUILDERS

    def _is_function_ref(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Lambda):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.def_names
        if isinstance(node, ast.Attribute):
            return node.attr in self.def_names
        return False

    def makes_jitted(self, value: ast.expr | None) -> bool:
        """`numba.njit(f, ...)`, `guvectorize(...)(f)`, `njit(parallel=True)(f)`, `my_jit(f)` (with
        `@my_jit` used in the file). Not `njit(f)(data)`: that calls the jitted function."""
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        if isinstance(func, ast.Call):  # builder(options)(function)
            return (self.is_jit_builder(func.func) or dotted_name(func.func) in self.decorator_names) and any(
                self._is_function_ref(arg) for arg in value.args
            )
        if self.is_jit_builder(func):
            return True
        return dotted_name(func) in self.decorator_names and any(self._is_function_ref(a) for a in value.args)

    def patched_imports(self, node: ast.stmt) -> set[str]:
        """The imported names whose attributes the statement assigns (`numba.jitclass =
        numba.experimental.jitclass`, a compatibility shim other modules rely on): part of what the name
        is here, as `TABLE[0] = 1` is of TABLE."""
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        patched = set()
        for target in targets:
            root = root_name(target) if isinstance(target, ast.Attribute) else None
            if root is not None and root in self.aliases.names:
                patched.add(root)
        return patched

    def definition_effect(self, node: ast.stmt) -> str | None:
        """What running a `def` or `class` statement would do to the world (effects.py)."""
        if isinstance(node, ast.ClassDef):
            return self.effects.expression_effect(_class_time_nodes(node)[0])
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return self.effects.expression_effect(_definition_time_nodes(node))
        return None

    # ---- units ------------------------------------------------------------------------------------
    def children(self, nodes: list[ast.stmt]) -> list[Unit | None]:
        """The units of a block: a `pass` or a string statement in it makes nothing run."""
        units = [self.unit(node) for node in nodes]
        for unit in units:
            if unit is not None and not unit.binds and isinstance(unit.node, ast.Pass | ast.Expr):
                unit.always = False
        return units

    def unit(self, node: ast.stmt) -> Unit | None:
        """None for a statement that is never run (the `__main__` block)."""
        if is_main_guard(node):
            return None
        if isinstance(node, ast.If):
            children = self.children([*node.body, *node.orelse])
            unit = Unit(node, loads([node.test]), set(), children=children)
            return _blocking(unit, self.effects.header_effect(node))
        if isinstance(node, ast.With | ast.AsyncWith):
            # Its context managers run with any statement of its block that is needed (`with open(data)
            # as f: TABLE = json.load(f)`); the rest of the block does not.
            children = self.children(node.body)
            items = [item.context_expr for item in node.items]
            targets = {
                name
                for item in node.items
                if item.optional_vars is not None
                for name in stored_names(item.optional_vars)
            }
            unit = Unit(node, loads(items), targets, children=children)
            return _blocking(unit, self.effects.header_effect(node))
        if isinstance(node, _TRIES):
            inner = [*node.body, *node.orelse, *node.finalbody]
            for handler in node.handlers:
                inner.extend(handler.body)
            children = self.children(inner)
            handler_types = [h.type for h in node.handlers if h.type is not None]
            handler_names = {h.name for h in node.handlers if h.name}
            return Unit(node, loads(handler_types), handler_names, children=children)
        if isinstance(node, ast.Import | ast.ImportFrom):
            return Unit(node, set(), bound_names(node), always=True)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            facts = _definition_facts(node, self.lines)
            if isinstance(node, ast.ClassDef):
                is_root = bool(node.decorator_list)
                # (a class of jitted methods runs, as a jitted `def` does)
                plain = not is_decorated(node, self.plain_decorators) and not has_decorated_methods(
                    node, self.plain_decorators
                )
            else:
                is_root = is_decorated(node, self.plain_decorators)
                plain = not is_root
            if not plain:  # its decorators read the names in their strings (signatures) when it runs
                reads, later_reads = set(facts.reads | facts.in_strings), set(facts.later_reads)
                return Unit(node, reads, {node.name}, later_reads=later_reads, always=True, is_root=is_root)
            # The names in a plain definition's strings (`x: "Vec"`, `parametrize("x, y", ...)`) are read
            # only by what reads its annotations later (jitclass(Spec)), if anything.
            unit = Unit(
                node,
                set(facts.reads),
                {node.name},
                later_reads=set(facts.later_reads | facts.in_strings),
                is_root=is_root,
            )
            # It runs whatever is needed only when running it costs nothing (slice_units).
            unit.always, unit.plain_definition, unit.calls = True, True, facts.calls
            return unit
        if isinstance(node, ast.Pass) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ):  # a docstring
            return Unit(node, set(), set(), always=True)
        written = namespace_writes(node)
        if written is not None:  # `globals().update(blades)`: defines names only running it tells
            loop_names = stored_names(node.target) if isinstance(node, ast.For) else set()
            unit = Unit(node, loads(written) - loop_names, {DYNAMIC_NAMES})
            return _blocking(unit, self.effects.expression_effect(list(written)))
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign | ast.Expr) else None
        reads = loads([node])
        binds = bound_names(node)
        # What a statement changes counts only for data the module's own code binds (not a module it
        # imports, not a builtin: `np.save(...)`, `open(p).write(...)` define nothing).
        binds &= self.effects.assigned | self.def_names
        binds |= self.patched_imports(node)
        for call in ast.walk(node):  # `init()` where init does `global TABLE; TABLE = ...` sets TABLE
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                binds |= self.sets_globals.get(call.func.id, set())
        if sets_up_environment(node, self.aliases):
            return Unit(node, reads, binds, always=True)
        if self.makes_jitted(value):
            return Unit(node, reads, binds, always=True, is_root=True)
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and self.effects.defines_for_numba(node.value)
        ):
            # `structref.define_proxy(Point, ...)`: Numba's typing of the module's own names it is given.
            defined = reads & (self.effects.assigned | self.def_names)
            return _blocking(
                Unit(node, reads, binds | defined, always=True), self.effects.statement_effect(node)
            )
        effect = self.effects.statement_effect(node)
        # `Cls.override_doc(...)`: a definition's method called for its effects is skipped, and the
        # definition keeps its value
        kept_values = called_on(node) & (self.def_names - self.effects.assigned) if effect else set()
        unit = _blocking(Unit(node, reads, binds - kept_values), effect)
        if kept_values:
            unit.idle_reason = f"it {effect}: the analysis never runs that"
        return unit


def _blocking(unit: Unit, effect: str | None) -> Unit:
    """The unit, marked (with everything inside it) as never run when running it would have `effect`."""
    if effect:
        pending = [unit]
        while pending:
            inner = pending.pop()
            inner.blocked = inner.blocked or effect
            pending.extend(child for child in inner.children if child is not None)
    return unit


# Never run in either loading mode (the module is never `__main__`): listed, but the editor does not fade it.
MAIN_BLOCK_REASON = 'the `if __name__ == "__main__":` block'


def _why_skipped(node: ast.stmt) -> str:
    if is_main_guard(node):
        return MAIN_BLOCK_REASON
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return "a call that defines nothing the jitted functions need"
    if isinstance(node, ast.Expr):
        return "an expression that defines nothing the jitted functions need"
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
        return "an assignment that no jitted function, decorator or definition reads"
    if isinstance(node, ast.For | ast.AsyncFor | ast.While):
        return "a loop that defines nothing the jitted functions need"
    if isinstance(node, ast.With | ast.AsyncWith):
        return "a `with` block that defines nothing the jitted functions need"
    return "a statement that defines nothing the jitted functions need"


def slice_module(
    tree: ast.Module, keep_assignments: bool = False, source: str | None = None
) -> TopLevelSlice:
    """The module with only what defining its jitted functions needs, and the statements left out.

    `keep_assignments`: every top-level assignment counts as needed (for a workspace module that another
    module imports: the names it exports must exist). `source`: the text `tree` was parsed from, when the
    caller has it (what definitions read is then remembered per definition text).
    """
    slicer = _Slicer(tree, keep_assignments, source)
    units = [slicer.unit(node) for node in tree.body]
    every: list[Unit] = []

    def collect(group: list[Unit | None], parent: Unit | None) -> None:
        for unit in group:
            if unit is not None:
                unit.parent = parent
                every.append(unit)
                collect(unit.children, unit)

    collect(units, None)
    binders: dict[str, list[Unit]] = {}
    for unit in every:
        for name in unit.binds:
            binders.setdefault(name, []).append(unit)
    settle_definitions(every, binders)
    needed: set[str] = set()
    expanded: set[int] = set()  # units whose later reads (function bodies) are needed
    queue: list[Unit | str] = [unit for unit in every if unit.always]
    if keep_assignments:
        # Another module imports this one: any name it binds may be imported, wherever it is bound.
        queue.extend(sorted(binders))
    refused: list[Unit] = []  # needed, but run only for effects: never run

    def expand(unit: Unit) -> None:
        if id(unit) not in expanded:
            expanded.add(id(unit))
            queue.extend(unit.later_reads - needed)

    while queue:
        item = queue.pop()
        if isinstance(item, str):  # a name became needed: what binds it runs; a function's body counts
            if item in needed:
                continue
            needed.add(item)
            # A name no statement binds by name may come from one that defines names at run time.
            found = binders.get(item) or ([] if item in _BUILTIN_NAMES else binders.get(DYNAMIC_NAMES, []))
            for binder in found:
                queue.append(binder)
                expand(binder)
            continue
        if item.kept or item.reason is not None:
            continue
        if item.plain_definition and item.calls:  # what its calls would do, once it is needed
            item.blocked = slicer.definition_effect(item.node)
        if item.blocked:
            item.reason = item.blocked
            refused.append(item)
            continue
        item.kept = True
        queue.extend(item.reads - needed)
        if item.is_root or item.binds & needed:
            expand(item)
        if item.parent is not None and not item.parent.kept:
            queue.append(item.parent)  # an `if`/`try` runs when anything inside it runs
        # and its `raise`s run too (`else: raise FileNotFoundError` sends a `try` to the handler binding X)
        queue.extend(c for c in item.children if c is not None and isinstance(c.node, ast.Raise))
        queue.extend(_probes(item, binders))
    unavailable = unavailable_names(every, binders, needed, refused)
    unavailable.pop(DYNAMIC_NAMES, None)
    skipped: list[SkippedStatement] = []
    kept_tree = ast.Module(body=_rebuild(tree.body, units, skipped), type_ignores=[])
    skipped.sort(key=lambda s: s.line)
    return TopLevelSlice(kept_tree, skipped, _future_flags(tree), unavailable)


def _probes(unit: Unit, binders: dict[str, list[Unit]]) -> list[Unit]:
    """A `try`'s call-free expression statements in its body (`try: _SETUP_`, `try: np.float128`): they
    only decide whether its handlers run, and they run with it. Only a probe of names that no statement
    of the module binds but an import, or a statement of the `try` itself (`try: helper` / `except:
    helper = fallback`: its handler binds it only once the probe failed): one that another statement binds
    (which may not run) would send the `try` to its handler where the program does not go."""
    if not isinstance(unit.node, _TRIES):
        return []
    found = []
    for child in unit.children[: len(unit.node.body)]:
        if (
            child is None
            or not isinstance(child.node, ast.Expr)
            or isinstance(child.node.value, ast.Constant)
        ):
            continue
        inner = list(ast.walk(child.node))
        if any(
            isinstance(n, ast.Call | ast.Await | ast.Yield | ast.YieldFrom | ast.NamedExpr) for n in inner
        ):
            continue
        bound = (binders.get(name, []) for name in child.reads)
        if all(
            isinstance(b.node, ast.Import | ast.ImportFrom) or b.inside(unit)
            for binding in bound
            for b in binding
        ):
            found.append(child)
    return found


def _idle_reason(unit: Unit) -> str | None:
    """Why a unit left out did not run, when the slice knows: its own reason, or the first of the plain
    definitions inside it (an `if` whose only statement is a `def` that calls)."""
    pending = [unit]
    while pending:
        inner = pending.pop(0)
        if inner.reason or inner.idle_reason:
            return inner.reason or inner.idle_reason
        pending.extend(child for child in inner.children if child is not None)
    return None


def _rebuild(
    body: list[ast.stmt], units: list[Unit | None], skipped: list[SkippedStatement]
) -> list[ast.stmt]:
    """The kept statements of `body` (parallel to `units`), `if`/`try` statements trimmed in copies."""
    kept: list[ast.stmt] = []
    for node, unit in zip(body, units, strict=True):
        if unit is None or not unit.kept:
            reason = (_idle_reason(unit) if unit is not None else None) or _why_skipped(node)
            # A decorated definition starts at its first decorator.
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
            skipped.append(SkippedStatement(first, node.end_lineno or node.lineno, reason))
            continue
        if isinstance(
            node, (ast.If, ast.With, ast.AsyncWith, *_TRIES)
        ):  # trimmed below: a copy, never the input
            node = copy.copy(node)
            if isinstance(node, _TRIES):
                node.handlers = [copy.copy(handler) for handler in node.handlers]
        if isinstance(node, ast.If):
            by_node = iter(unit.children)
            node.body = _rebuild(node.body, [next(by_node) for _ in node.body], skipped) or [_pass(node)]
            node.orelse = _rebuild(node.orelse, [next(by_node) for _ in node.orelse], skipped)
        elif isinstance(node, ast.With | ast.AsyncWith):
            node.body = _rebuild(node.body, unit.children, skipped) or [_pass(node)]
        elif isinstance(node, _TRIES):
            children = iter(unit.children)
            groups = [node.body, node.orelse, node.finalbody]
            node.body = _rebuild(node.body, [next(children) for _ in groups[0]], skipped) or [_pass(node)]
            node.orelse = _rebuild(node.orelse, [next(children) for _ in groups[1]], skipped)
            node.finalbody = _rebuild(node.finalbody, [next(children) for _ in groups[2]], skipped)
            for handler in node.handlers:
                handler.body = _rebuild(handler.body, [next(children) for _ in handler.body], skipped) or [
                    _pass(handler)
                ]
        kept.append(node)
    return kept


def _pass(where: ast.stmt | ast.excepthandler) -> ast.Pass:
    """A `pass` for a block whose statements all were left out, located at the block's statement."""
    return ast.Pass(
        lineno=where.lineno,
        col_offset=where.col_offset,
        end_lineno=where.lineno,
        end_col_offset=where.col_offset,
    )


def _future_flags(tree: ast.Module) -> int:
    flags = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:
                feature = getattr(__future__, alias.name, None)
                flags |= getattr(feature, "compiler_flag", 0)
    return flags
