"""Module-level names that a Numba decorator call made from a function (`fast = jit(nopython=True)(slow)`,
`fast = numba.njit(slow)`), from the AST only: calling such a name compiles that function."""

from __future__ import annotations

import ast

_NUMBA_JITS = ("jit", "njit")


def _is_numba_jit(node: ast.expr, imports: dict[str, tuple[str, int, str | None]]) -> bool:
    """`jit`, `njit`, `numba.njit`, `nb.jit` (imported from numba), or a call of one (`jit(nopython=True)`)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        found = imports.get(node.id)
        return found is not None and found[0] == "numba" and found[2] in _NUMBA_JITS
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in _NUMBA_JITS:
        return imports.get(node.value.id) == ("numba", 0, None)
    return False


def jit_aliases(
    tree: ast.Module,
    imports: dict[str, tuple[str, int, str | None]],
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> dict[str, str]:
    """Module-level `fast = jit(...)(slow)` / `fast = njit(slow)`: fast -> slow, for a function that
    has exactly one dispatcher made this way and a name assigned once (a parallel and a serial
    dispatcher over one function are two dispatchers: neither gets the other's calls)."""
    assigned: dict[str, int] = {}
    made: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        assigned[name.id] = assigned.get(name.id, 0) + 1
        if not (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            continue
        value = node.value
        if (
            isinstance(value, ast.Call)
            and len(value.args) == 1
            and not value.keywords
            and isinstance(value.args[0], ast.Name)
            and value.args[0].id in defs
            and _is_numba_jit(value.func, imports)
        ):
            made.setdefault(value.args[0].id, []).append(node.targets[0].id)
    return {
        names[0]: function
        for function, names in made.items()
        if len(names) == 1 and assigned.get(names[0]) == 1 and names[0] not in defs
    }
