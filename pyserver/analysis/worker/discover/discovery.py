"""Find jitted functions in Python source with the AST only: nothing is imported or executed.

The debugger (breakpoint routing), the language server (code lenses, untrusted workspaces) and the
analysis engine (which functions to type-check, where their decorators are) all start from here.

Decorators are resolved through the module's imports, so `@njit`, `@numba.njit`, `@nb.jit(...)`,
`from numba import njit as fast` / `@fast`, `@cuda.jit`, `@vectorize([...])`, `@guvectorize(...)`,
`@cfunc(...)`, `@generated_jit` and `@jitclass(spec)` (its methods, named "Class.method") are found.
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pyserver.caches import BoundedCache, bounded_cache
from pyserver.pysource import source_segment

# Fully qualified decorator -> kind. Aliases (`import numba as nb`, `from numba import njit as fast`)
# are resolved to these names first.
_DECORATOR_KINDS: dict[str, str] = {
    "numba.njit": "njit",
    "numba.jit": "jit",
    "numba.core.decorators.njit": "njit",
    "numba.core.decorators.jit": "jit",
    "numba.vectorize": "vectorize",
    "numba.np.ufunc.vectorize": "vectorize",
    "numba.guvectorize": "guvectorize",
    "numba.np.ufunc.guvectorize": "guvectorize",
    "numba.cfunc": "cfunc",
    "numba.core.decorators.cfunc": "cfunc",
    "numba.generated_jit": "generated_jit",
    "numba.core.decorators.generated_jit": "generated_jit",
    "numba.stencil": "stencil",
    "numba.cuda.jit": "cuda",
    # @overload implementations: typed from the calls that resolve to them (pyserver.analysis.worker.infer.kernels)
    "numba.extending.overload": "overload",
    "numba.core.extending.overload": "overload",
    "numba.extending.overload_method": "overload-method",
    "numba.core.extending.overload_method": "overload-method",
    # @register_jitable: the function itself compiles when jitted code calls it (from Python it runs as
    # Python), typed from those calls like an @overload's implementation
    "numba.extending.register_jitable": "register-jitable",
    "numba.core.extending.register_jitable": "register-jitable",
}
# Kinds whose decorated function is not itself compiled (it returns the implementation Numba compiles).
OVERLOAD_KINDS = ("overload", "overload-method")
# Kinds typed from the calls Numba's typing resolved to them (never from Python callers).
TYPED_FROM_JITTED_CALLS = (*OVERLOAD_KINDS, "register-jitable")
_JITCLASS_NAMES = {"numba.experimental.jitclass", "numba.jitclass", "numba.experimental.jitclass.jitclass"}

# Options whose literal value is kept as a typed value; every other keyword is kept too (raw when it
# is not a literal).
KNOWN_OPTIONS = ("parallel", "forceobj", "nopython", "nogil", "fastmath", "boundscheck", "cache", "debug")


@dataclass
class OptionSpan:
    """Where a decorator keyword sits (1-based line, 0-based columns), e.g. for `nopython=False`."""

    line: int
    col: int
    end_line: int
    end_col: int


@dataclass
class JitFunction:
    name: str  # qualified: "walk", "Point.norm", "outer.<locals>.inner"
    def_line: int  # 1-based line of `def`
    end_line: int  # 1-based last line of the body
    decorator_line: int  # 1-based line of the jit decorator (the class decorator for jitclass methods)
    kind: (
        str  # njit | jit | vectorize | guvectorize | cfunc | generated_jit | stencil | cuda | jitclass-method
    )
    options: dict[str, Any] = field(default_factory=dict)
    params: list[str] = field(default_factory=list)
    # Extensions beyond the shared contract.
    signatures: list[str] = field(default_factory=list)  # explicit signatures as source text
    option_spans: dict[str, OptionSpan] = field(default_factory=dict)
    decorator_end_line: int = 0
    def_col: int = 0  # 0-based column of `def`
    name_col: int = 0  # 0-based column of the function's name on the def line
    annotations: dict[str, str] = field(default_factory=dict)  # param -> annotation source text
    nested: bool = False  # defined inside another function (not reachable from the module)
    first_line: int = 0  # 1-based line of the first decorator (the code object's co_firstlineno)
    # "decorator": found in the source by its Numba decorator; "created": found because Numba created a
    # dispatcher or ufunc builder for it while the module loaded (a call such as `numba.njit(f_py)`, a
    # library's own decorator, a builder kept on an object), and placed in the source by name and line.
    origin: str = "decorator"
    created_line: int = 0  # for "created": 1-based line of the call in this file that passes it, if any
    # that call written with a signature (`jit("SIGNATURE", nopython=True)(f)`), where it is a jit call
    created_call: str = ""


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for a Name or a chain of Attributes; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement, nested ones included (in defs and classes too), without visiting expressions
    (much faster than ast.walk)."""
    for node in body:
        yield node
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                yield from statements(inner)
        for handler in getattr(node, "handlers", ()) or ():
            yield from statements(handler.body)
        for case in getattr(node, "cases", ()) or ():
            yield from statements(case.body)


# The statements nested in a statement (not itself), per node object: incremental parsing keeps the node
# objects of unchanged top-level statements, so after an edit only those it touched are walked again.
_NESTED: weakref.WeakKeyDictionary[ast.stmt, tuple[ast.stmt, ...]] = weakref.WeakKeyDictionary()


def nested_statements(node: ast.stmt) -> tuple[ast.stmt, ...]:
    """`statements([node])` without `node` itself, remembered for the node (treat nodes as read-only)."""
    found = _NESTED.get(node)
    if found is None:
        found = _NESTED[node] = tuple(statements([node]))[1:]
    return found


def module_statements(tree: ast.Module) -> Iterator[ast.stmt]:
    """`statements(tree.body)`, each top-level statement's nested ones remembered (nested_statements)."""
    for node in tree.body:
        yield node
        yield from nested_statements(node)


class ImportNames:
    """Local name -> fully qualified name, from the module's import statements (anywhere in the file)."""

    def __init__(self, tree: ast.Module) -> None:
        self.names: dict[str, str] = {}
        for node in module_statements(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.names[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.names[top] = top
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    if alias.name != "*":
                        self.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                    elif node.module == "numba":
                        for qualified in [*_DECORATOR_KINDS, "numba.cuda"]:
                            if qualified.count(".") == 1:
                                short = qualified.split(".")[1]
                                self.names.setdefault(short, qualified)

    def resolve(self, node: ast.expr, keep_unknown: bool = False) -> str | None:
        """The qualified name of `node`; a name no import made is None, or itself with `keep_unknown`."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        qualified = self.names.get(head, head if keep_unknown else None)
        if qualified is None:
            return None
        return f"{qualified}.{rest}" if rest else qualified


def _literal(node: ast.expr) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _signature_texts(node: ast.expr, source: str) -> list[str]:
    """Explicit signatures: a string, a list/tuple of them, or expressions (kept as source text)."""
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    texts = []
    for item in items:
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            texts.append(item.value)
        else:
            texts.append(source_segment(source, item) or ast.unparse(item))
    return texts


def _parse_decorator_call(call: ast.Call, kind: str, source: str, function: JitFunction) -> None:
    positional = list(call.args)
    if kind == "guvectorize" and len(positional) >= 2:
        ok, layout = _literal(positional[1])
        function.options["layout"] = layout if ok else ast.unparse(positional[1])
        positional = positional[:1]
    elif kind == "guvectorize" and len(positional) == 1:
        # guvectorize("(n)->(n)") without signatures: a dynamic gufunc
        ok, value = _literal(positional[0])
        if ok and isinstance(value, str) and "->" in value:
            function.options["layout"] = value
            positional = []
    if kind in ("overload", "overload-method"):  # what it implements, not a signature
        function.options["implements"] = ", ".join(ast.unparse(p) for p in positional)
        positional = []
    if kind == "jitclass-method":
        if positional:
            function.options["spec"] = source_segment(source, positional[0]) or ast.unparse(positional[0])
        positional = []
    if positional:
        function.signatures = _signature_texts(positional[0], source)
    raw: dict[str, str] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raw["**"] = ast.unparse(keyword.value)
            continue
        if kind == "jitclass-method" and keyword.arg == "spec":
            function.options["spec"] = ast.unparse(keyword.value)
            continue
        if keyword.arg in ("signature_or_function", "signatures", "sigs"):
            function.signatures = _signature_texts(keyword.value, source)
            continue
        ok, value = _literal(keyword.value)
        if ok:
            function.options[keyword.arg] = value
        else:
            raw[keyword.arg] = source_segment(source, keyword.value) or ast.unparse(keyword.value)
        function.option_spans[keyword.arg] = OptionSpan(
            keyword.lineno,
            keyword.col_offset,
            keyword.end_lineno or keyword.lineno,
            keyword.end_col_offset or keyword.col_offset,
        )
    if raw:
        function.options["raw"] = raw


def function_params(args: ast.arguments) -> tuple[list[str], dict[str, str]]:
    names: list[str] = []
    annotations: dict[str, str] = {}
    for arg in [*args.posonlyargs, *args.args]:
        names.append(arg.arg)
        if arg.annotation is not None:
            annotations[arg.arg] = ast.unparse(arg.annotation)
    if args.vararg is not None:
        names.append(args.vararg.arg)
    for arg in args.kwonlyargs:
        names.append(arg.arg)
        if arg.annotation is not None:
            annotations[arg.arg] = ast.unparse(arg.annotation)
    return names, annotations


# One pattern for every function (compiling one per name cost ~0.3 ms each: 0.3 s for 1,000 functions).
_DEF_NAME = re.compile(r"\bdef\s+(\w+)")


def def_name_col(source_lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    line = source_lines[node.lineno - 1] if node.lineno - 1 < len(source_lines) else ""
    for match in _DEF_NAME.finditer(line, node.col_offset):
        if match.group(1) == node.name:
            return match.start(1)
    return node.col_offset


def jitclass_calls(
    body: list[ast.stmt], imports: ImportNames
) -> list[tuple[str, str | None, ast.Call, ast.Call]]:
    """(class, the name it binds or None where its target is no single name, the call, the call that
    holds the spec) for each statement of `body` that makes a jitclass by a call: `Point =
    jitclass(spec)(Point)`, `PointJ = jitclass(Point, spec)`."""
    found = []
    for node in body:
        if not isinstance(node, ast.Assign):
            continue
        value = node.value
        if not isinstance(value, ast.Call) or not value.args or not isinstance(value.args[0], ast.Name):
            continue
        options = value.func if isinstance(value.func, ast.Call) else value
        if imports.resolve(options.func) not in _JITCLASS_NAMES:
            continue
        spec_call = (
            options if options is not value else ast.Call(options.func, value.args[1:], value.keywords)
        )
        target = node.targets[0] if len(node.targets) == 1 else None
        bound = target.id if isinstance(target, ast.Name) else None
        found.append((value.args[0].id, bound, value, spec_call))
    return found


class _Finder(ast.NodeVisitor):
    def generic_visit(self, node: ast.AST) -> None:
        # Only statements can hold function and class definitions: skip expressions entirely.
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                for child in inner:
                    self.visit(child)
        for handler in getattr(node, "handlers", ()) or ():
            self.visit(handler)
        for case in getattr(node, "cases", ()) or ():
            self.visit(case)

    def __init__(self, source: str, imports: ImportNames) -> None:
        self.source = source
        self.lines = source.splitlines()
        self.imports = imports
        self.scope: list[str] = []  # qualified-name parts
        self.function_depth = 0
        self.found: list[JitFunction] = []
        # top-level class -> the module-level jitclass call that makes a jitclass of it (jitclass_calls)
        self.jitclass_calls: dict[str, tuple[ast.expr, ast.Call | None]] = {}

    def find_jitclass_calls(self, body: list[ast.stmt]) -> None:
        """The classes a module-level jitclass call makes jitclasses of (jitclass_calls): their methods are
        jitted as a `@jitclass(spec)` decorator's would be; the call that holds the spec is kept."""
        for cls, _bound, call, spec_call in jitclass_calls(body, self.imports):
            self.jitclass_calls.setdefault(cls, (call, spec_call))

    def _jit_decorator(self, decorator: ast.expr) -> tuple[str, ast.Call | None] | None:
        call = decorator if isinstance(decorator, ast.Call) else None
        target = call.func if call is not None else decorator
        qualified = self.imports.resolve(target)
        if qualified is None:
            return None
        if qualified in _DECORATOR_KINDS:
            return _DECORATOR_KINDS[qualified], call
        if qualified in _JITCLASS_NAMES:
            return "jitclass-method", call
        return None

    def _record(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        kind: str,
        decorator: ast.expr,
        call: ast.Call | None,
    ) -> None:
        params, annotations = function_params(node.args)
        function = JitFunction(
            name=".".join([*self.scope, node.name]),
            def_line=node.lineno,
            end_line=node.end_lineno or node.lineno,
            decorator_line=decorator.lineno,
            kind=kind,
            params=params,
            decorator_end_line=decorator.end_lineno or decorator.lineno,
            def_col=node.col_offset,
            name_col=def_name_col(self.lines, node),
            annotations=annotations,
            nested=self.function_depth > 0,
            first_line=min([d.lineno for d in node.decorator_list] + [node.lineno]),
        )
        if call is not None:
            _parse_decorator_call(call, kind, self.source, function)
        self.found.append(function)

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            match = self._jit_decorator(decorator)
            if match is not None and match[0] != "jitclass-method":
                self._record(node, match[0], decorator, match[1])
                break
        self.scope.extend([node.name, "<locals>"])
        self.function_depth += 1
        self.generic_visit(node)
        self.function_depth -= 1
        del self.scope[-2:]

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        jitclass: tuple[ast.expr, ast.Call | None] | None = None
        for decorator in node.decorator_list:
            match = self._jit_decorator(decorator)
            if match is not None and match[0] == "jitclass-method":
                jitclass = (decorator, match[1])
                break
        if jitclass is None and not self.scope and node.name in self.jitclass_calls:
            jitclass = self.jitclass_calls[node.name]
        self.scope.append(node.name)
        if jitclass is not None:
            decorator, call = jitclass
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._record(item, "jitclass-method", decorator, call)
        self.generic_visit(node)
        self.scope.pop()


def find_jitted_functions(
    source: str, path: str = "<string>", tree: ast.Module | None = None
) -> list[JitFunction]:
    """Every jitted function in `source`, in source order. Raises SyntaxError for unparsable source.

    Results are cached per source text (hovers, lenses and the analysis ask again for the same text):
    the JitFunction objects are shared between callers, so treat them as read-only. `tree`: the caller
    already parsed `source` (the analysis does, once for all its steps), so it is not parsed again.
    """
    return list(_find_cached(source, path, tree))


# The functions found per (source, path), the 8 most recent; the caller's parsed tree, when it has one,
# is not part of the key. Hovers and lenses ask from the server's threads (the cache locks).
_found: BoundedCache[tuple[str, str], tuple[JitFunction, ...]] = bounded_cache("discovery.found", 8)


def _find_cached(source: str, path: str, tree: ast.Module | None = None) -> tuple[JitFunction, ...]:
    key = (source, path)
    found = _found.get(key)
    if found is not None:
        return found
    parsed = tree if tree is not None else ast.parse(source, filename=path)
    found = tuple(find_jitted_functions_in_tree(parsed, source))
    _found[key] = found
    return found


def clear_found_cache() -> None:
    """Forget the functions found so far (for measuring a first discovery)."""
    _found.clear()


def find_jitted_functions_in_tree(tree: ast.Module, source: str) -> list[JitFunction]:
    """find_jitted_functions for a caller that already parsed `source` into `tree` (no second parse)."""
    imports = ImportNames(tree)
    finder = _Finder(source, imports)
    # What a top-level statement holds depends on it and the imports alone, so it is kept per node object
    # (incremental parsing keeps unchanged ones); not when str.splitlines, which _Finder numbers lines
    # with, counts other line breaks than Python (a statement's lines would depend on the text above).
    reuse = _OTHER_LINE_BREAKS.search(source) is None
    found: list[JitFunction] = []
    if "jitclass" in source:
        finder.find_jitclass_calls(tree.body)
    for node in tree.body:
        kept = _FOUND_IN.get(node) if reuse else None
        made_by_call = isinstance(node, ast.ClassDef) and node.name in finder.jitclass_calls
        if kept is not None and kept[0] == imports.names and not made_by_call:
            found.extend(kept[1])
            continue
        finder.found = []
        finder.visit(node)
        if reuse and not made_by_call:
            _FOUND_IN[node] = (dict(imports.names), tuple(finder.found))
        found.extend(finder.found)
    found.sort(key=lambda f: (f.def_line, f.name))
    return found


# top-level statement -> (the import table it was read with, the jitted functions it holds)
_FOUND_IN: weakref.WeakKeyDictionary[ast.stmt, tuple[dict[str, str], tuple[JitFunction, ...]]] = (
    weakref.WeakKeyDictionary()
)
_OTHER_LINE_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def jitted_function_at(functions: list[JitFunction], line: int) -> JitFunction | None:
    """The innermost jitted function whose decorator..end range holds the 1-based `line`."""
    best: JitFunction | None = None
    best_start = 0
    for function in functions:
        # A jitclass method starts at its own `def` (the decorator belongs to the class).
        start = function.def_line if function.kind == "jitclass-method" else function.decorator_line
        if start <= line <= function.end_line and (best is None or start >= best_start):
            best, best_start = function, start
    return best


def statements_shallow(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a block, looking into if/try/with/for/while/match but not into defs or classes
    (for a module's body: the module's own code)."""
    for node in body:
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                yield from statements_shallow(inner)
        for handler in getattr(node, "handlers", ()) or ():
            yield from statements_shallow(handler.body)
        for case in getattr(node, "cases", ()) or ():
            yield from statements_shallow(case.body)
