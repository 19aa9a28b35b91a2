"""The names top-level statements and function bodies read and bind, from the AST alone (for the slice)."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable, Iterator

from pyserver.pysource import statements_in


def root_name(node: ast.expr) -> str | None:
    """`a` for `a`, `a.b.c`, `a[1].b`, `a.f(x).y`."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call | ast.Starred):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def walk(roots: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Every node under these (themselves included), as ast.walk gives them but in another order and
    without its generator per node (a few times faster on large bodies)."""
    pending = list(roots)
    while pending:
        node = pending.pop()
        yield node
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                pending.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                pending.append(value)


def loads(nodes: list[ast.AST] | list[ast.expr] | list[ast.stmt], strings: bool = True) -> set[str]:
    """Names read by these nodes; with `strings`, also the names inside strings that read as type
    expressions (string annotations, signature strings: `"float64(Arr2D, int64)"`)."""
    names: set[str] = set()
    for node in walk(nodes):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                names.add(node.id)
        elif strings and isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.update(names_in_string(node.value))
    return names


_TYPE_EXPRESSION = re.compile(r"^[\w\s\[\](),.:*|'\"-]{1,300}$")


@functools.lru_cache(maxsize=4096)
def names_in_string(text: str) -> frozenset[str]:
    """Names in a string that parses as an expression: `"float64(Arr2D, int64)"`, `"Vector"`. Cached:
    the same signature and annotation strings come back on every save."""
    if not _TYPE_EXPRESSION.match(text):
        return frozenset()  # prose, a gufunc layout ("(n)->()") or a format string: no names to find
    try:
        parsed = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError):
        return frozenset()
    return frozenset(n.id for n in ast.walk(parsed) if isinstance(n, ast.Name))


def local_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """A function's parameters and the names its own code binds (not those of functions inside it), less
    its `global` names: what its body reads under these names is no module global."""
    args = node.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    declared: set[str] = set()
    pending: list[ast.AST] = list(node.body)
    while pending:
        inner = pending.pop()
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(inner.name)
            continue
        if isinstance(inner, ast.Lambda):
            continue
        if isinstance(inner, ast.Global | ast.Nonlocal):
            declared.update(inner.names)
        elif isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store | ast.Del):
            names.add(inner.id)
        elif isinstance(inner, ast.alias):
            names.add(inner.asname or inner.name.split(".")[0])
        pending.extend(ast.iter_child_nodes(inner))
    return names - declared


def body_reads(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """`loads(node.body, strings=False) - local_names(node)`, in one walk of the body (a generated
    function's body can have hundreds of thousands of nodes)."""
    args = node.args
    bound = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    bound |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    reads: set[str] = set()
    declared: set[str] = set()
    # (node, whether it is in the function's own scope: not inside a nested def, class or lambda)
    pending: list[tuple[ast.AST, bool]] = [(statement, True) for statement in node.body]
    while pending:
        inner, own = pending.pop()
        if isinstance(inner, ast.Name):
            if isinstance(inner.ctx, ast.Load):
                reads.add(inner.id)
            elif own:
                bound.add(inner.id)
            continue
        if own:
            if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(inner.name)
                own = False
            elif isinstance(inner, ast.Lambda):
                own = False
            elif isinstance(inner, ast.Global | ast.Nonlocal):
                declared.update(inner.names)
            elif isinstance(inner, ast.alias):
                bound.add(inner.asname or inner.name.split(".")[0])
        for field in inner._fields:
            value = getattr(inner, field, None)
            if isinstance(value, list):
                pending.extend((item, own) for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                pending.append((value, own))
    return reads - (bound - declared)


def definition_time(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[ast.AST]:
    """What a `def` or `class` statement evaluates when it runs, its decorators' own calls aside: their
    callee and arguments, defaults, annotations, bases and keywords; a class's body statements (its
    methods' and inner classes' as definitions)."""
    parts: list[ast.AST] = []
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call):
            parts += [decorator.func, *decorator.args, *(k.value for k in decorator.keywords)]
        else:
            parts.append(decorator)
    if isinstance(node, ast.ClassDef):
        parts += [*node.bases, *(k.value for k in node.keywords)]
        for statement in node.body:
            parts += (
                definition_time(statement)
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                else [statement]
            )
        return parts
    arguments = node.args
    parts += [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    every = [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        arguments.vararg,
        arguments.kwarg,
    ]
    parts += [a.annotation for a in every if a is not None and a.annotation is not None]
    if node.returns is not None:
        parts.append(node.returns)
    return parts


def calls(nodes: list[ast.AST]) -> bool:
    """Whether evaluating these nodes calls anything (a lambda's body is not evaluated where it is made)."""
    pending = list(nodes)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Call):
            return True
        if not isinstance(node, ast.Lambda):
            pending.extend(ast.iter_child_nodes(node))
    return False


def definition_reads(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
) -> tuple[set[str], set[str], bool]:
    """What a `def` or `class` statement does when it runs (definition_time), in one walk: (names its code
    reads, names that only its strings name, whether it calls anything but its decorators)."""
    names: set[str] = set()
    in_strings: set[str] = set()
    makes_calls = False
    pending: list[tuple[ast.AST, bool]] = [(part, False) for part in definition_time(node)]
    while pending:
        inner, in_lambda = pending.pop()
        if isinstance(inner, ast.Name):
            if isinstance(inner.ctx, ast.Load):
                names.add(inner.id)
            continue
        if isinstance(inner, ast.Constant):
            if isinstance(inner.value, str):
                in_strings.update(names_in_string(inner.value))
            continue
        if isinstance(inner, ast.Call) and not in_lambda:
            makes_calls = True
        inside = in_lambda or isinstance(inner, ast.Lambda)  # a lambda's body runs when it is called
        for name in inner._fields:
            value = getattr(inner, name, None)
            if isinstance(value, list):
                pending.extend((item, inside) for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                pending.append((value, inside))
    return names, in_strings - names, makes_calls


def bound_names(node: ast.stmt) -> set[str]:
    """Names a statement binds, or changes the value of (`TABLE[0] = 1`, `CFG.n = 2`, `SPEC.append(x)`)."""
    names: set[str] = set()
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            names.add(alias.asname or alias.name.split(".")[0])
        return names
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store | ast.Del):
            names.add(inner.id)
        elif isinstance(inner, ast.Attribute | ast.Subscript) and isinstance(inner.ctx, ast.Store | ast.Del):
            root = root_name(inner)
            if root:
                names.add(root)
        elif isinstance(inner, ast.Import | ast.ImportFrom):  # inside `if`, `try`, `with`
            names |= {alias.asname or alias.name.split(".")[0] for alias in inner.names if alias.name != "*"}
        elif isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(inner.name)
        elif isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call):
            func = inner.value.func
            if isinstance(func, ast.Attribute):  # `SPEC.append(...)`, `TABLE.fill(0)`: a mutation
                root = root_name(func.value)
                if root:
                    names.add(root)
        elif isinstance(inner, ast.NamedExpr):
            names.add(inner.target.id)
    return names


def called_on(node: ast.stmt) -> set[str]:
    """The names whose methods the statement calls as statements (`Cls.register(x)`), and does not
    assign, nor assign into (`Cls.x = 1`)."""
    roots, stored = set(), set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call):
            func = inner.value.func
            root = root_name(func.value) if isinstance(func, ast.Attribute) else None
            if root:
                roots.add(root)
        elif isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store | ast.Del):
            stored.add(inner.id)
        elif isinstance(inner, ast.Attribute | ast.Subscript) and isinstance(inner.ctx, ast.Store | ast.Del):
            stored.add(root_name(inner) or "")
    return roots - stored


def stored_names(target: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def assigned_names(tree: ast.Module) -> set[str]:
    """Names the module's own top-level code binds to data (not imports, defs or classes)."""
    names: set[str] = set()
    for node, enclosing in statements_in(tree.body):
        if enclosing is not None:
            continue
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
            targets = [node.target]
        elif isinstance(node, ast.With | ast.AsyncWith):
            targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
        for target in targets:
            names |= {
                n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
    return names


# The name a statement binds when it defines module names at run time (never an identifier; a star
# import, `from m import *`, binds it too, by `bound_names`).
DYNAMIC_NAMES = "*"
_NAMESPACE_CALLS = {"globals", "locals", "vars"}
_NAMESPACE_METHODS = {"update", "setdefault", "__setitem__"}


def _is_namespace(node: ast.expr) -> bool:
    """`globals()`, `locals()` or `vars()`: at the top level, the module's own namespace."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _NAMESPACE_CALLS
        and not node.args
        and not node.keywords
    )


def namespace_writes(node: ast.stmt) -> list[ast.expr] | None:
    """The expressions of a top-level statement that defines module names at run time, whose names only
    running it tells: `globals().update(blades)`, `locals().update(d)`, `globals()[name] = value`, and a
    `for` loop whose body only does that. None for any other statement."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        if isinstance(func, ast.Attribute) and func.attr in _NAMESPACE_METHODS and _is_namespace(func.value):
            return [*node.value.args, *(k.value for k in node.value.keywords)]
        return None
    if (
        isinstance(node, ast.Assign)
        and node.targets
        and all(isinstance(t, ast.Subscript) and _is_namespace(t.value) for t in node.targets)
    ):
        return [node.value, *(t.slice for t in node.targets if isinstance(t, ast.Subscript))]
    if isinstance(node, ast.For) and not node.orelse and node.body:
        inner = [namespace_writes(statement) for statement in node.body]
        if all(part is not None for part in inner):
            return [node.iter, *(expr for part in inner for expr in part or ())]
    return None
