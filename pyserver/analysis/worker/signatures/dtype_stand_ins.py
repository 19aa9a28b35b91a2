"""NumPy constructors whose result a slice fixes statically: `np.array(data, dtype=...)` where the dtype
and the nesting of the data give the array's type although Numba cannot type the data itself
(`np.array(list(reversed(range(n))), dtype=np.int64)`, a list of record tuples), `dtype=` spelled the
Python way (`dtype=complex`, `dtype=int`), as a string (`dtype='int32'`) or through a name
(`dtype = np.int64`), structured dtypes made from a literal field list (`dtype=[("x", "f8")]`,
`rt = np.dtype([("x", np.double), ("y", np.double)])`); Numba array types spelled by slicing a scalar
type (`types.float64[:]`); and Python's own conversions (`int(sys.argv[1])`), whose result is an int or a
float whatever they convert.

AST only, apart from building NumPy dtypes from literal field lists and Numba's array types from its
scalar types: nothing of the user's runs.
"""

from __future__ import annotations

import ast
import builtins
import copy
import hashlib
from collections.abc import Iterable
from typing import Any

import numpy as np

from pyserver import numba_api
from pyserver.analysis.worker.signatures.caller_slices import resolved_global

# NumPy's constructors of a new array of a given dtype, with the index of the dtype among their positional
# parameters. NumPy reads a dtype spelled as a string ('int32', 'f8') or a list of fields as it reads the
# scalar type or the structured dtype; Numba types only some spellings in some of them
# (`np.arange(5, dtype='int32')` fails, `np.arange(5, dtype=np.int32)` types), so the slice is given the
# one Numba types.
_CONSTRUCTORS = {
    "array": 1, "asarray": 1, "empty": 1, "zeros": 1, "ones": 1, "full": 2, "arange": 3, "eye": 3,
    "identity": 1, "empty_like": 1, "zeros_like": 1, "ones_like": 1, "full_like": 2,
}  # fmt: skip
_FROM_DATA = ("array", "asarray")
_PYTHON_DTYPES = (int, float, complex, bool)
_SCALAR_FUNCTIONS = (int, float, complex, bool, abs, round)  # map(f, numbers) gives numbers
_LIST_MAKERS = (list, tuple, sorted)  # a new list or tuple of the items of an iterable
_ITEM_PRESERVING = (reversed, sorted, list, tuple)
_MAX_DEPTH = 8


def _numeric_constant(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, complex, bool)


def _plain_or_structured(dtype: np.dtype[Any]) -> bool:
    """A dtype Numba holds that its scalar type names exactly (`float32`, not `>f4` or `<U10`, whose byte
    order or length the scalar type loses), or a structured dtype (passed on as the dtype itself)."""
    if not numba_api.numba_dtype_supported(dtype):
        return False
    return dtype.names is not None or np.dtype(dtype.type) == dtype


class DtypePlan:
    """What the calls of a slice's statements become: each constructor call or dtype expression that
    the slice fixes, by node id, with the global that replaces it."""

    def __init__(self, roots: Iterable[ast.AST], values: dict[str, Any]) -> None:
        self.values = values
        self.replacements: dict[int, tuple[str, Any, bool]] = {}  # id -> (global name, value, is_call)
        self._stores: dict[str, list[ast.AST]] = {}
        self._roots = list(roots)
        for root in self._roots:
            for node in ast.walk(root):
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    self._stores.setdefault(node.id, []).append(node)
        self._definitions: dict[str, ast.expr] = {}
        for root in self._roots:
            for node in ast.walk(root):
                if (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and len(self._stores.get(node.targets[0].id, ())) == 1
                ):
                    self._definitions[node.targets[0].id] = node.value
        for root in self._roots:
            self._plan(root)

    def _builtin(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Name) and node.id not in self._stores:
            value = self.values.get(node.id)
            return value if value is getattr(builtins, node.id, None) else None
        return None

    def _resolved(self, node: ast.expr) -> Any:
        found = resolved_global(node, self.values)
        return found if found is not None else self._builtin(node)

    def dtype(self, node: ast.expr, depth: int = 0) -> np.dtype[Any] | None:
        """The NumPy dtype an expression denotes, if the source alone fixes it."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                return np.dtype(node.value)
            except TypeError:
                return None
        if isinstance(node, ast.List):  # `dtype=[("x", "f8"), ("y", "f8")]`: np.dtype of the same fields
            return self._fields(node, False, depth + 1)
        if isinstance(node, ast.Call):  # `dtype=np.dtype([...])` spelled inline
            return self._structured(node, depth + 1)
        if isinstance(node, ast.Name) and node.id in self._stores:  # assigned once in the slice
            value = self._definitions.get(node.id)
            if value is None:
                return None
            return self._structured(value, depth + 1) or self.dtype(value, depth + 1)  # `dtype = np.int64`
        target = self._resolved(node)
        if any(target is t for t in _PYTHON_DTYPES):
            return np.dtype(target)
        if isinstance(target, type) and issubclass(target, np.generic):
            return np.dtype(target)
        if isinstance(target, np.dtype):
            return target
        return None

    def _structured(self, node: ast.expr, depth: int) -> np.dtype[Any] | None:
        """`np.dtype([("x", np.double), ("v", np.float32, 3)], align=True)` with literal fields."""
        if not isinstance(node, ast.Call) or self._resolved(node.func) is not np.dtype or len(node.args) != 1:
            return None
        if not node.keywords and not isinstance(node.args[0], ast.List):
            return self.dtype(node.args[0], depth)  # `np.dtype("f4")`, `np.dtype(np.float32)`
        align = False
        for keyword in node.keywords:
            if keyword.arg != "align" or not isinstance(keyword.value, ast.Constant):
                return None
            align = keyword.value.value is True
        return self._fields(node.args[0], align, depth)

    def _fields(self, fields: ast.expr, align: bool, depth: int) -> np.dtype[Any] | None:
        """The structured dtype of a literal field list (`[("x", np.double), ("v", "f4", 3)]`)."""
        if depth > _MAX_DEPTH or not isinstance(fields, ast.List) or not fields.elts:
            return None
        spec: list[tuple[Any, ...]] = []
        for field in fields.elts:
            if not isinstance(field, ast.Tuple) or len(field.elts) not in (2, 3):
                return None
            name = field.elts[0]
            if not isinstance(name, ast.Constant) or not isinstance(name.value, str):
                return None
            kind = self.dtype(field.elts[1], depth + 1)
            if kind is None:
                return None
            if len(field.elts) == 3:
                try:
                    shape = ast.literal_eval(field.elts[2])
                except ValueError:
                    return None
                spec.append((name.value, kind, shape))
            else:
                spec.append((name.value, kind))
        try:
            return np.dtype(spec, align=align)
        except (TypeError, ValueError):
            return None

    def _scalar_iterable(self, node: ast.expr, depth: int = 0) -> bool:
        """Does iterating this expression give numbers (`range(n)`, `reversed(...)` of it, ...)?"""
        if depth > _MAX_DEPTH:
            return False
        if isinstance(node, ast.List | ast.Tuple):
            return all(_numeric_constant(e) for e in node.elts)
        if not isinstance(node, ast.Call) or node.keywords:
            return False
        function = self._resolved(node.func)
        if function is range:
            return True
        if any(function is f for f in _ITEM_PRESERVING) and len(node.args) == 1:
            return self._scalar_iterable(node.args[0], depth + 1)
        if function is map and len(node.args) == 2:
            mapped = self._resolved(node.args[0])
            return any(mapped is f for f in _SCALAR_FUNCTIONS) and self._scalar_iterable(
                node.args[1], depth + 1
            )
        return False

    def _rank(self, node: ast.expr, record_width: int | None, depth: int = 0) -> tuple[int, int] | None:
        """(rank, length) of the array NumPy makes from this data, if its nesting fixes it."""
        if depth > _MAX_DEPTH:
            return None
        leaf = (
            _numeric_constant(node)
            if record_width is None
            else isinstance(node, ast.Tuple)
            and len(node.elts) == record_width
            and all(_numeric_constant(e) for e in node.elts)
        )
        if leaf:
            return (0, 0)
        containers = ast.List | ast.Tuple if record_width is None else ast.List
        if isinstance(node, containers):
            inner = [self._rank(e, record_width, depth + 1) for e in node.elts]
            if any(i is None for i in inner) or len(set(inner)) > 1:
                return None  # ragged or mixed: NumPy raises
            return ((inner[0][0] if inner else 0) + 1, len(node.elts))  # type: ignore[index]
        if (
            record_width is None
            and isinstance(node, ast.Call)
            and not node.keywords
            and len(node.args) == 1
            and any(self._resolved(node.func) is f for f in _LIST_MAKERS)
            and self._scalar_iterable(node.args[0], depth + 1)
        ):
            return (1, -1)
        return None

    def _plan(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            target = node.targets[0] if len(node.targets) == 1 else None
            if isinstance(target, ast.Name) and self._definitions.get(target.id) is node.value:
                structured = self._structured(node.value, 0)
                if structured is not None and _plain_or_structured(structured):
                    self._replace(node.value, "dtype", structured, structured, False)
                    return
        if isinstance(node, ast.Call):
            if self._plan_conversion(node) or self._plan_call(node):
                return
        if isinstance(node, ast.Subscript) and self._plan_array_type(node):
            return
        for child in ast.iter_child_nodes(node):
            self._plan(child)

    def _plan_array_type(self, node: ast.Subscript) -> bool:
        """`types.float64[:]` (a typed Dict's `value_type=`, say): an array type spelled by slicing a Numba
        scalar type, which Numba's typing of a function body does not evaluate; the slice gets the type
        itself, as a global holding it."""
        root = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(node.ctx, ast.Load) or (isinstance(root, ast.Name) and root.id in self._stores):
            return False  # a variable of the slice, not the global of that name
        index = _literal_slices(node.slice)
        scalar = self._resolved(node.value) if index is not None else None
        array_type = None if scalar is None else numba_api.sliced_numba_type(scalar, index)
        if array_type is None:
            return False
        digest = hashlib.sha256(str(array_type).encode()).hexdigest()[:12]
        self.replacements[id(node)] = (f"__lens_array_type_{digest}__", array_type, False)
        return True

    def _plan_conversion(self, call: ast.Call) -> bool:
        """`int(sys.argv[1])`, `float(text)`: Python's own conversions give an int or a float whatever
        they are given (typeof: int64, float64), so the call is replaced and Numba need not type what it
        converts."""
        target = self._resolved(call.func)
        kind = int if target is int else float if target is float else None
        if kind is None or call.keywords or not 1 <= len(call.args) <= (2 if kind is int else 1):
            return False
        stand_in = numba_api.python_value_stand_in(kind)
        if stand_in is None:
            return False
        self.replacements[id(call)] = (f"__lens_{kind.__name__}_value__", stand_in, True)
        return True

    def _plan_call(self, call: ast.Call) -> bool:
        """Plan a constructor call; True when the whole call is replaced (nothing inside it is read)."""
        target = resolved_global(call.func, self.values)
        name = next((n for n in _CONSTRUCTORS if target is getattr(np, n)), None)
        if name is None:
            return False
        position = _CONSTRUCTORS[name]
        dtype_node = next((k.value for k in call.keywords if k.arg == "dtype"), None)
        if dtype_node is None and len(call.args) > position:
            dtype_node = call.args[position]
        dtype = None if dtype_node is None else self.dtype(dtype_node)
        if dtype_node is None or dtype is None or not _plain_or_structured(dtype):
            return False
        if name in _FROM_DATA and len(call.args) in (1, 2) and all(k.arg == "dtype" for k in call.keywords):
            rank = self._rank(call.args[0], None if dtype.names is None else len(dtype.names))
            stand_in = None if rank is None else numba_api.array_stand_in(dtype, rank[0])
            if stand_in is not None:
                self._replace(call, f"array{rank[0]}", dtype, stand_in, True)  # type: ignore[index]
                return True
        self._replace(dtype_node, "dtype", dtype, dtype if dtype.names else dtype.type, False)
        for child in ast.iter_child_nodes(call):
            if child is not dtype_node:
                self._plan(child)
        return False

    def _replace(self, node: ast.AST, kind: str, dtype: np.dtype[Any], value: Any, is_call: bool) -> None:
        described = repr(dtype.descr) + str(dtype.isalignedstruct) if dtype.names else dtype.str
        digest = hashlib.sha256(f"{kind}{described}".encode()).hexdigest()[:12]
        self.replacements[id(node)] = (f"__lens_{kind}_{digest}__", value, is_call)

    def names_read_outside(self) -> tuple[set[str], set[str]]:
        """(names read outside the replaced nodes, names read only inside them)."""
        outside: set[str] = set()
        inside: set[str] = set()

        def walk(node: ast.AST, replaced: bool) -> None:
            replaced = replaced or id(node) in self.replacements
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                (inside if replaced else outside).add(node.id)
            for child in ast.iter_child_nodes(node):
                walk(child, replaced)

        for root in self._roots:
            walk(root, False)
        return outside, inside - outside


def _literal_slices(node: ast.expr) -> slice | tuple[slice, ...] | None:
    """The index `[:]`, `[:, ::1]` spells, where its bounds are literal ints or absent."""
    parts = node.elts if isinstance(node, ast.Tuple) else [node]
    found: list[slice] = []
    for part in parts:
        if not isinstance(part, ast.Slice):
            return None
        bounds: list[int | None] = []
        for bound in (part.lower, part.upper, part.step):
            if bound is None:
                bounds.append(None)
            elif isinstance(bound, ast.Constant) and type(bound.value) is int:
                bounds.append(bound.value)
            else:
                return None
        found.append(slice(*bounds))
    return tuple(found) if isinstance(node, ast.Tuple) else found[0]


def covered_names(roots: Iterable[ast.AST], values: dict[str, Any]) -> set[str]:
    """Names that the slice reads only inside what substitute_dtypes replaces."""
    return DtypePlan(roots, values).names_read_outside()[1]


def substitute_dtypes(
    function: ast.FunctionDef,
    source: str,
    values: dict[str, Any],
    replaced: dict[int, tuple[str, Any, bool]] | None = None,
) -> tuple[ast.FunctionDef, dict[str, Any]]:
    """The slice with each constructor or dtype the source fixes replaced by a global (a stand-in
    call, a NumPy scalar type or a dtype value), and the globals to add; also the nodes in `replaced`
    (by id: (the global's name, its value, whether it is called)). The AST shared with the parsed file
    is never changed: the slice is copied first."""
    # (a dtype given by position is read only by the constructors whose string Numba does not type;
    # `[:` for an array type spelled by slicing a Numba type)
    spelled = ("dtype", "int(", "float(", "arange(", "eye(", "[:")
    if not any(text in source for text in spelled) and not replaced:
        return function, {}
    plan = DtypePlan([function], values)
    plan.replacements.update(replaced or {})
    if not plan.replacements:
        return function, {}
    changed = copy.deepcopy(function)
    originals = {id(n): n for n in ast.walk(function)}
    copies = dict(zip((id(n) for n in ast.walk(function)), ast.walk(changed), strict=True))
    added: dict[str, Any] = {}
    swap: dict[int, ast.expr] = {}
    for node_id, (name, value, is_call) in plan.replacements.items():
        if node_id not in originals:
            continue
        added[name] = value
        reference = ast.Name(id=name, ctx=ast.Load())
        swap[id(copies[node_id])] = ast.Call(func=reference, args=[], keywords=[]) if is_call else reference
    _Swapper(swap).visit(changed)
    return changed, added


class _Swapper(ast.NodeTransformer):
    def __init__(self, swap: dict[int, ast.expr]) -> None:
        self.swap = swap

    def visit(self, node: ast.AST) -> Any:
        found = self.swap.get(id(node))
        if found is not None:
            return found
        return super().visit(node)


__all__: list[str] = ["DtypePlan", "covered_names", "substitute_dtypes"]
