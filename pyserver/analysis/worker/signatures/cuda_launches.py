"""Argument types of CUDA kernels from their launches in the file's Python code, read without running it.

A launch is `kernel[blocks, threads](...)`, `kernel[blocks, threads, stream, shmem](...)`,
`kernel.forall(n)(...)`, or a configured kernel kept in a variable (`cfg = kernel[1, 16]; cfg(a, out)`).
Each argument is typed from what the code says it is: a number, a NumPy constructor (`np.arange`,
`np.zeros`, `np.empty_like`, `.astype`, ...) or a CUDA array constructor (`cuda.to_device`,
`cuda.device_array`, `cuda.device_array_like`, `cuda.pinned_array`, `cuda.mapped_array`: a device
array's type is its array type), through names assigned once in the same scope or at the top level.
Never a guess: an argument whose value is anything else (a parameter, a function's result, a name
assigned on two paths) gives no signature.

Types are descriptions (ArgDescription) that numba_api.cuda turns into Numba types.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# ("array", dtype, ndim) or ("scalar", dtype)
ArgDescription = tuple[str, ...]

_NP_SCALARS = {
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "complex64", "complex128", "bool_",
}  # fmt: skip
_ALLOCATORS = {"zeros", "ones", "empty", "full"}
_LIKE = {"zeros_like", "ones_like", "empty_like", "full_like", "copy", "ascontiguousarray"}
_CUDA_ALLOCATORS = {"device_array", "pinned_array", "mapped_array", "managed_array"}


@dataclass
class Launch:
    """One launch of a kernel: the call and its arguments' types (None where unknown)."""

    kernel: str
    call: ast.Call
    scope: str  # the enclosing function's name, "<module>" at the top level
    args: list[ArgDescription | None] = field(default_factory=list)
    why_unknown: str | None = None


def _dtype_name(node: ast.expr | None) -> str | None:
    if node is None:
        return "float64"
    if isinstance(node, ast.Attribute) and node.attr in _NP_SCALARS:
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in _NP_SCALARS:
        return node.value
    if isinstance(node, ast.Name):
        return {"float": "float64", "int": "int64", "bool": "bool_", "complex": "complex128"}.get(node.id)
    return None


def _ndim(shape: ast.expr, typer: _Typer) -> int | None:
    if isinstance(shape, ast.Tuple):
        return len(shape.elts)
    described = typer.describe(shape)
    if described is not None and described[0] == "scalar" and described[1].startswith(("int", "uint")):
        return 1
    return None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


class _Typer:
    """Types expressions of one scope (and the module's top level) from their single assignments."""

    def __init__(self, assigned: dict[str, list[ast.expr]], module: dict[str, list[ast.expr]]) -> None:
        self.assigned, self.module, self.depth = assigned, module, 0

    def describe(self, node: ast.expr) -> ArgDescription | None:
        self.depth += 1
        try:
            return None if self.depth > 20 else self._describe(node)
        finally:
            self.depth -= 1

    def _describe(self, node: ast.expr) -> ArgDescription | None:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool):
                return ("scalar", "bool_")
            if isinstance(value, int):
                return ("scalar", "int64")
            if isinstance(value, float):
                return ("scalar", "float64")
            if isinstance(value, complex):
                return ("scalar", "complex128")
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            return self.describe(node.operand)
        if isinstance(node, ast.Name):
            values = self.assigned.get(node.id) or self.module.get(node.id) or []
            return self.describe(values[0]) if len(values) == 1 else None
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv):
            sides = [self.describe(node.left), self.describe(node.right)]
            if all(side == ("scalar", "int64") for side in sides):
                return ("scalar", "int64")  # Python ints: what a launch passes as int64
        return None

    def _call(self, call: ast.Call) -> ArgDescription | None:
        func = call.func
        if isinstance(func, ast.Name) and func.id == "create_xoroshiro128p_states":
            return ("array", "xoroshiro128p", "1")  # a device array of the generator's record type
        if not isinstance(func, ast.Attribute):
            return None
        name, args = func.attr, call.args
        owner = func.value.id if isinstance(func.value, ast.Name) else None
        if owner in ("np", "numpy"):
            if name in _NP_SCALARS:
                return ("scalar", name)
            if name == "arange":
                kinds = [self.describe(a) for a in args]
                if not args or any(k is None or k[0] != "scalar" for k in kinds):
                    return None
                dtype = _dtype_name(_keyword(call, "dtype")) if _keyword(call, "dtype") else None
                floats = any(k is not None and k[1].startswith("float") for k in kinds)
                return ("array", dtype or ("float64" if floats else "int64"), "1")
            if name in _ALLOCATORS and args:
                dtype_node = _keyword(call, "dtype") or (
                    args[1] if len(args) > 1 and name != "full" else None
                )
                ndim, dtype = _ndim(args[0], self), _dtype_name(dtype_node)
                if name == "full" and dtype_node is None:
                    return None  # the fill value decides
                return None if ndim is None or dtype is None else ("array", dtype, str(ndim))
            if name in _LIKE and args:
                return self._like(self.describe(args[0]), _keyword(call, "dtype"))
            return None
        if owner == "cuda":
            if name == "to_device" and args:
                return self._like(self.describe(args[0]), None)
            if name == "device_array_like" and args:
                return self._like(self.describe(args[0]), None)
            if name in _CUDA_ALLOCATORS and args:
                dtype_node = _keyword(call, "dtype") or (args[1] if len(args) > 1 else None)
                ndim, dtype = _ndim(args[0], self), _dtype_name(dtype_node)
                return None if ndim is None or dtype is None else ("array", dtype, str(ndim))
            return None
        if isinstance(func, ast.Attribute) and name == "create_xoroshiro128p_states":
            return ("array", "xoroshiro128p", "1")  # a device array of the generator's record type
        if name == "astype" and args:
            base = self.describe(func.value)
            dtype = _dtype_name(args[0])
            return None if base is None or base[0] != "array" or dtype is None else ("array", dtype, base[2])
        if name == "copy_to_device" and args:
            return self._like(self.describe(args[0]), None)
        return None

    @staticmethod
    def _like(base: ArgDescription | None, dtype_node: ast.expr | None) -> ArgDescription | None:
        if base is None or base[0] != "array":
            return None
        dtype = base[1] if dtype_node is None else _dtype_name(dtype_node)
        return None if dtype is None else ("array", dtype, base[2])


def _assignments(body: list[ast.stmt]) -> dict[str, list[ast.expr]]:
    """Name -> every value assigned to it in these statements (nested blocks too, not nested defs)."""
    found: dict[str, list[ast.expr]] = {}

    def visit(statements: list[ast.stmt]) -> None:
        for stmt in statements:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append(stmt.value)
                    else:  # tuple targets: the names get values this reader does not follow
                        for sub in ast.walk(target):
                            if isinstance(sub, ast.Name):
                                found.setdefault(sub.id, []).extend([stmt.value, stmt.value])
            elif isinstance(stmt, ast.AugAssign | ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                found.setdefault(stmt.target.id, []).extend([stmt.value or stmt.target] * 2)
            elif isinstance(stmt, ast.For | ast.With | ast.AsyncFor | ast.AsyncWith):
                targets = (
                    [stmt.target]
                    if isinstance(stmt, ast.For | ast.AsyncFor)
                    else [i.optional_vars for i in stmt.items if i.optional_vars is not None]
                )
                for target in targets:
                    for sub in ast.walk(target):
                        if isinstance(sub, ast.Name):
                            found.setdefault(sub.id, []).extend([sub, sub])
            for name in ("body", "orelse", "finalbody"):
                visit(getattr(stmt, name, []) or [])
            for handler in getattr(stmt, "handlers", []) or []:
                visit(handler.body)

    visit(body)
    return found


def _launched_kernel(func: ast.expr, configured: dict[str, str], kernels: set[str]) -> str | None:
    """The kernel a call's callee launches: `k[...]`, `k.forall(n)`, or a configured kernel's name."""
    if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Name) and func.value.id in kernels:
        return func.value.id
    if (
        isinstance(func, ast.Call)
        and isinstance(func.func, ast.Attribute)
        and func.func.attr == "forall"
        and isinstance(func.func.value, ast.Name)
        and func.func.value.id in kernels
    ):
        return func.func.value.id
    if isinstance(func, ast.Name):
        return configured.get(func.id)
    return None


def find_launches(tree: ast.Module, kernels: set[str]) -> list[Launch]:
    """Every launch of these kernels (names of the module's @cuda.jit kernels) in the file."""
    module_assigned = _assignments(tree.body)
    scopes: list[tuple[str, list[ast.stmt]]] = [("<module>", tree.body)]
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name not in kernels:
            scopes.append((node.name, node.body))
    launches: list[Launch] = []
    for scope, body in scopes:
        assigned = _assignments(body) if scope != "<module>" else {}
        typer = _Typer(assigned, module_assigned)
        own = assigned if scope != "<module>" else module_assigned
        configured = {
            name: value.value.id
            for name, values in own.items()
            if len(values) == 1
            for value in values
            if isinstance(value, ast.Subscript)
            and isinstance(value.value, ast.Name)
            and value.value.id in kernels
        }
        for stmt in body:
            if scope != "<module>" or not isinstance(
                stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            ):
                for node in _walk_scope(stmt):
                    if not isinstance(node, ast.Call):
                        continue
                    kernel = _launched_kernel(node.func, configured, kernels)
                    if kernel is None:
                        continue
                    launch = Launch(kernel, node, scope)
                    if any(isinstance(a, ast.Starred) for a in node.args) or node.keywords:
                        launch.why_unknown = "it passes *args or keywords"
                    else:
                        launch.args = [typer.describe(a) for a in node.args]
                    launches.append(launch)
    return launches


def _walk_scope(stmt: ast.stmt) -> list[ast.AST]:
    """The nodes of a statement, not those of functions and classes defined in it."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                stack.append(child)
    return found
