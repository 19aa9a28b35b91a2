"""Functions Numba created while a module loaded (`fast = njit(slow)`, a library's own `@fast`, kernels built
by objects): placed in the source by qualified name and first line, beside those found by their
decorators (discovery.py)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pyserver.analysis.worker.discover.discovery import (
    JitFunction,
    def_name_col,
    dotted_name,
    function_params,
    statements_shallow,
)
from pyserver.pysource import source_segment

_CREATED_KINDS = {
    "jit": "njit",
    "njit": "njit",
    "vectorize": "vectorize",
    "guvectorize": "guvectorize",
    "cfunc": "cfunc",
    "cuda": "cuda",
}


@dataclass
class Created:
    """What the loader saw Numba create for one function of this file (no Numba object: plain data)."""

    qualname: str  # "step_py", "Kernels.func"
    first_line: int  # the code object's co_firstlineno (its first decorator, or its `def`); 0: any
    kind: str  # the loader's kind: jit | vectorize | guvectorize | cfunc
    options: dict[str, Any] = field(default_factory=dict)
    signatures: list[str] = field(default_factory=list)


def _function_nodes(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, int]]:
    """(qualified name, def node, nesting depth in functions) for every function of the module."""

    def walk(body: list[ast.stmt], scope: list[str], depth: int) -> Iterator[Any]:
        for node in statements_shallow(body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield ".".join([*scope, node.name]), node, depth
                yield from walk(node.body, [*scope, node.name, "<locals>"], depth + 1)
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, [*scope, node.name], depth)

    yield from walk(tree.body, [], 0)


def _creation_calls(tree: ast.Module, source: str) -> dict[str, tuple[int, str]]:
    """Short function name -> (first line of a call that passes it, the call written again with a
    signature: `jit(SIGNATURE, nopython=True)(f)` for `jit(f, nopython=True)`, else "") for
    `numba.njit(step_py)`, `wrap(self.f)`."""
    calls: dict[str, tuple[int, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for arg in node.args:
                name = (
                    arg.id
                    if isinstance(arg, ast.Name)
                    else arg.attr
                    if isinstance(arg, ast.Attribute)
                    else None
                )
                if name is not None and (name not in calls or node.lineno < calls[name][0]):
                    calls[name] = (node.lineno, _with_signature(node, arg, source))
    return calls


def _with_signature(call: ast.Call, function: ast.expr, source: str) -> str:
    """`builder(f, **options)` or `builder(**options)(f)` as `builder(SIGNATURE, **options)(f)`, in the
    call's own words (its builder's name, its options); "" for any other call."""
    options_call = call.func if isinstance(call.func, ast.Call) else call
    builder = dotted_name(options_call.func)
    passed = [a for a in options_call.args if a is not function]
    if builder is None or len(call.args) != 1 or passed or (options_call is not call and call.keywords):
        return ""
    options = [source_segment(source, k) or ast.unparse(k) for k in options_call.keywords]
    inner = ", ".join(['"SIGNATURE"', *options])
    return f"{builder}({inner})({source_segment(source, function) or ast.unparse(function)})"


def place_created(
    functions: list[JitFunction], source: str, created: list[Created], tree: ast.Module | None = None
) -> list[JitFunction]:
    """`functions` (found by their decorators) plus every function Numba created that they miss, placed
    at its `def` (matched by qualified name and first line). Source order; nothing found is invented: a
    created function whose `def` is not in this text (it changed since) is left out. `tree`: `source`
    already parsed."""
    known = {f.name for f in functions}
    wanted = {(c.qualname, c.first_line): c for c in created if c.qualname not in known}
    if not wanted:
        return functions
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return functions
    lines = source.splitlines()
    creation_calls = _creation_calls(tree, source)
    placed = list(functions)
    for qualname, node, depth in _function_nodes(tree):
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        # first_line 0: any `def` of that name (the editor's text may have moved since the analysis)
        spec = wanted.pop((qualname, first), None) or wanted.pop((qualname, 0), None)
        if spec is None:
            continue
        params, annotations = function_params(node.args)
        function = JitFunction(
            name=qualname,
            def_line=node.lineno,
            end_line=node.end_lineno or node.lineno,
            # the decorator that made it (a library's own `@fast`), else the `def` itself
            decorator_line=node.decorator_list[0].lineno if node.decorator_list else node.lineno,
            kind=_CREATED_KINDS.get(spec.kind, "njit"),
            options=dict(spec.options),
            params=params,
            signatures=list(spec.signatures),
            decorator_end_line=(node.decorator_list[-1].end_lineno or node.lineno)
            if node.decorator_list
            else node.lineno,
            def_col=node.col_offset,
            name_col=def_name_col(lines, node),
            annotations=annotations,
            nested=depth > 0,
            first_line=first,
            origin="created",
            created_line=creation_calls.get(node.name, (0, ""))[0],
            created_call=creation_calls.get(node.name, (0, ""))[1],
        )
        if spec.kind == "jit":  # Numba's jit is nopython since 0.59; `forceobj=True` shows in the options
            function.kind = "njit" if spec.options.get("nopython", True) else "jit"
        placed.append(function)
    placed.sort(key=lambda f: (f.def_line, f.name))
    return placed


def with_analysed(
    functions: tuple[JitFunction, ...], source: str, infos: list[Any]
) -> tuple[JitFunction, ...]:
    """The editor's view: the functions found by their decorators plus those an analysis found because
    Numba created them (FunctionInfo objects: name, kind, options), placed in `source` by name."""
    known = {f.name for f in functions}
    created = [Created(i.name, 0, i.kind, dict(i.options)) for i in infos if i.name not in known]
    return tuple(place_created(list(functions), source, created)) if created else functions
