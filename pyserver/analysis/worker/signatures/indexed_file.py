"""One file's index, from the AST only: its functions' scopes and the Python calls in each (call sites
by the first name of the callee expression), its imports, and the names its own jit calls and definitions
bind. CallIndex (call_index.py) keeps one per workspace file.
"""

from __future__ import annotations

import ast
import os
import weakref
from dataclasses import dataclass, field, replace

from pyserver import pysource
from pyserver.analysis.worker.discover.discovery import find_jitted_functions, statements_shallow
from pyserver.analysis.worker.load.incremental_parse import IncrementalParser
from pyserver.analysis.worker.signatures.call_scopes import callee_text
from pyserver.analysis.worker.signatures.jit_aliases import (
    jit_alias_spans,
    jit_aliases,
    jit_made,
    jitclass_made,
    loaded_jit_names,
    redefinitions,
)


@dataclass
class Scope:
    """Python code that calls: a module's top level or one function (a Python, not a jitted, one)."""

    path: str
    qualname: str  # "<module>" for the top level
    node: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef
    params: list[str] = field(default_factory=list)
    defaults: dict[str, ast.expr] = field(default_factory=dict)  # parameter -> its default expression
    has_var_params: bool = False  # *args / **kwargs


@dataclass
class CallSite:
    scope: Scope
    call: ast.Call
    name: str  # the local name (`kernel`) or `module.attr` text it was called through
    anchor: ast.stmt | None = None  # for a value that is not a call (a fixture's return): its statement
    receiver: bool = False  # a method call (`bag.increment(3)`): its receiver is the first argument


@dataclass
class IndexedFile:
    path: str
    stamp: tuple[int, int]
    tree: ast.Module
    module_dir: str
    # local name -> (module text, level, imported name or None for `import x`)
    imports: dict[str, tuple[str, int, str | None]]
    top_level_defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    jitted: set[str]  # qualnames of jitted functions (their bodies are not Python callers)
    object_mode: set[str]  # ... but these, compiled in object mode (`forceobj=True`): their bodies are ones
    calls: dict[str, list[CallSite]]  # first name of the callee expression -> sites
    scopes: dict[str, Scope]
    has_walrus: bool = True  # ":=" occurs in the text: an assignment expression may bind a name
    # module-level name -> the top-level function a Numba decorator call made it from, for a function
    # with exactly one such name (`fast = jit(nopython=True)(slow)`): calling it compiles that function
    jit_aliases: dict[str, str] = field(default_factory=dict)
    # a name bound in turn to dispatchers of several functions: name -> (first, last line, function) of
    # each stretch of the module's top-level code where it holds one (jit_aliases.jit_alias_spans)
    jit_alias_spans: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    # the top-level functions a module-level jit call makes a dispatcher of, and the classes a jitclass call
    # makes a jitclass of -> the names it binds them to
    jit_made: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # the names those calls bind that nothing else binds: the loaded module holds what the call made
    loaded_jit_names: frozenset[str] = frozenset()
    # a top-level function's name bound again at the top level -> (first, last line) of each binding
    redefined: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    top_level_classes: set[str] = field(default_factory=set)  # a jitclass's calls construct it


def ast_nodes(root: ast.AST) -> list[ast.AST]:
    """Every node under `root` (itself included) in ast.walk's order, breadth first, as a list: several
    times faster than ast.walk's generators, which dominate indexing and slicing a large file."""
    found = [root]
    i = 0
    while i < len(found):
        node = found[i]
        i += 1
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                found.append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        found.append(item)
    return found


def stamp_of(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def _scope_for(path: str, qualname: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Scope:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    params = [a.arg for a in positional] + [a.arg for a in args.kwonlyargs]
    defaults: dict[str, ast.expr] = {}
    for param, default in zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True):
        defaults[param.arg] = default
    for param, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if kw_default is not None:
            defaults[param.arg] = kw_default
    return Scope(path, qualname, node, params, defaults, args.vararg is not None or args.kwarg is not None)


def _module_functions(
    tree: ast.Module, imported: set[str]
) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The module's own functions: its top-level `def`s, and a `def` in a top-level `if`/`try`/`with`
    block where the module defines that name once and imports it nowhere (`if sys.version_info > (3, 4):
    def concat(...)`); which of two branches' definitions holds the name only the run decides."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    nested = [
        n for n in statements_shallow(tree.body) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    counts: dict[str, int] = {}
    for node in nested:
        counts[node.name] = counts.get(node.name, 0) + 1
    for node in nested:
        # `try: from numba import njit` / `except ImportError: def njit(f): ...`: a stand-in of an import
        if counts[node.name] == 1 and node.name not in imported:
            functions.setdefault(node.name, node)
    return functions


def index_source(
    path: str, source: str, stamp: tuple[int, int], parser: IncrementalParser | None = None
) -> IndexedFile | None:
    """`parser`: parses an edited buffer again reusing the unchanged top-level statements' nodes (so
    what python_callers keeps per node, a caller's flattened statements, stays valid for them)."""
    try:
        tree = parser.parse(source, path) if parser is not None else pysource.parse(source, path)
    except (SyntaxError, ValueError):
        return None
    try:
        found = find_jitted_functions(source, path, tree)
    except (SyntaxError, ValueError):
        found = []
    jitted = {f.name for f in found}
    # an object-mode function's body runs as Python: its calls of jitted functions are Python calls
    object_mode = {f.name for f in found if f.kind in ("jit", "njit") and f.options.get("forceobj") is True}
    imports: dict[str, tuple[str, int, str | None]] = {}
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = (alias.name, 0, None)
                else:
                    imports.setdefault(alias.name.split(".")[0], (alias.name.split(".")[0], 0, None))
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    imports[alias.asname or alias.name] = (node.module or "", node.level, alias.name)
    indexed = IndexedFile(
        path=path,
        stamp=stamp,
        tree=tree,
        module_dir=os.path.dirname(path),
        imports=imports,
        # the module's own functions: at its top level, or in its `if`/`try`/`with` blocks
        top_level_defs=_module_functions(tree, set(imports)),
        jitted=jitted,
        object_mode=object_mode,
        calls={},
        scopes={},
        has_walrus=":=" in source,
    )
    indexed.jit_made = {**jit_made(tree, imports, indexed.top_level_defs), **jitclass_made(tree)}
    indexed.loaded_jit_names = loaded_jit_names(tree, indexed.jit_made)
    indexed.jit_aliases = jit_aliases(tree, indexed.jit_made, indexed.top_level_defs)
    indexed.jit_alias_spans = jit_alias_spans(tree, imports, indexed.top_level_defs)
    indexed.redefined = redefinitions(tree)
    indexed.top_level_classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    module_scope = Scope(path, "<module>", tree)
    indexed.scopes["<module>"] = module_scope
    _collect_module_calls(indexed, tree, module_scope)
    return indexed


_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


def _statements(tree: ast.Module) -> list[ast.AST]:
    """The statements under `tree` (and the except/case clauses that hold some), in ast.walk's order:
    the nodes ast_nodes visits but the expressions, which never hold a statement (an import)."""
    found: list[ast.AST] = [tree]
    i = 0
    while i < len(found):
        node = found[i]
        i += 1
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list) and value and isinstance(value[0], _HOLDS_STATEMENTS):
                found.extend(value)
    return found


class _NotedSet(set[str]):
    """A set that notes what it was asked (`in`) and its answers."""

    def __init__(self, items: set[str]) -> None:
        super().__init__(items)
        self.asked: dict[str, bool] = {}

    def __contains__(self, item: object) -> bool:
        found = super().__contains__(item)
        self.asked[str(item)] = found
        return found


# top-level statement -> (the jitted names asked and their answers, the scopes it holds (qualname, node),
# its calls (first name, scope's qualname, call, callee text)): an edited buffer's unchanged statements
# (incremental parsing keeps their nodes) are not walked again
_CALLS_IN: weakref.WeakKeyDictionary[
    ast.stmt,
    tuple[
        dict[str, bool],
        list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]],
        list[tuple[str, str, ast.Call, str]],
    ],
] = weakref.WeakKeyDictionary()


def _collect_module_calls(indexed: IndexedFile, tree: ast.Module, module_scope: Scope) -> None:
    """_collect_calls of the module's body, statement by statement, each from _CALLS_IN while the
    jitted names it asked about are still (not) jitted."""
    for statement in tree.body:
        kept = _CALLS_IN.get(statement)
        if kept is None or any((name in indexed.jitted) != was for name, was in kept[0].items()):
            noted = _NotedSet(indexed.jitted)
            scratch = replace(indexed, calls={}, scopes={}, jitted=noted)
            _collect_calls(scratch, [statement], Scope(indexed.path, "<module>", tree), "")
            scopes: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
            for name, scope in scratch.scopes.items():
                assert not isinstance(scope.node, ast.Module)  # the module's own scope is not in scratch
                scopes.append((name, scope.node))
            calls = [
                (first, site.scope.qualname, site.call, site.name)
                for first, sites in scratch.calls.items()
                for site in sites
            ]
            kept = (noted.asked, scopes, calls)
            _CALLS_IN[statement] = kept
        for qualname, node in kept[1]:
            indexed.scopes[qualname] = _scope_for(indexed.path, qualname, node)
        for first, qualname, call, text in kept[2]:
            scope = module_scope if qualname == "<module>" else indexed.scopes[qualname]
            indexed.calls.setdefault(first, []).append(CallSite(scope, call, text))


def _collect_calls(indexed: IndexedFile, body: list[ast.stmt], scope: Scope, prefix: str) -> None:
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            qualname = prefix + stmt.name
            # Defaults and decorators run in the enclosing scope; the body is a scope of its own.
            for expr in [*stmt.decorator_list, *stmt.args.defaults]:
                _calls_in(indexed, expr, scope)
            if qualname in indexed.jitted and qualname not in indexed.object_mode:
                continue
            inner = _scope_for(indexed.path, qualname, stmt)
            indexed.scopes[qualname] = inner
            _collect_calls(indexed, stmt.body, inner, qualname + ".<locals>.")
        elif isinstance(stmt, ast.ClassDef):
            _collect_calls(indexed, stmt.body, scope, prefix + stmt.name + ".")
        else:
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.stmt):
                    _collect_calls(indexed, [child], scope, prefix)
                else:
                    _calls_in(indexed, child, scope)


def _calls_in(indexed: IndexedFile, node: ast.AST, scope: Scope) -> None:
    for sub in ast_nodes(node):
        if isinstance(sub, ast.Call):
            text = callee_text(sub.func)
            if text is not None:
                indexed.calls.setdefault(text.split(".")[0], []).append(CallSite(scope, sub, text))
