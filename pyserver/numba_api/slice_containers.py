"""Typed containers, Python dicts and dispatchers in a Python caller's slice (slices.py): which of the
types Numba infers there are the ones the dispatcher sees at run time.

A `numba.typed.List`, `Dict` or `Set` made in Python is typed by what is first put into it (or by the
types `empty_list`/`Dict.empty`/`Set.empty` state), and the dispatcher takes its declared type, whatever
its items. Numba types a slice's `List()` the same way, from the first `append` it types: the two agree
when every value put into the container has the container's own type (then the order of the puts does
not matter), and when that type is numba.typeof's of the first item: an array Numba types F or A may be
C-contiguous at run time, so only a container that states such an item type (`types.float64[:]`) is
sure to hold it. A Python dict display (`{}`, `dict()`) has the same Numba type as a typed `Dict`, but
at run time it is a Python dict, which the dispatcher cannot take.

Part of the numba_api fence (see its __init__): Numba internals live only in this package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba.core import ir
from numba.core import types as nbtypes

# Methods that put values into a typed List (the value last) or a typed Dict (key, value)
_LIST_PUTS = ("append", "insert", "extend")
_DICT_PUTS = ("setdefault",)
_SET_PUTS = ("add",)
SET_TYPE = getattr(nbtypes, "SetType", None)  # numba.typed.Set's type, in the releases that have it
_TYPED = tuple(t for t in (nbtypes.ListType, nbtypes.DictType, SET_TYPE) if t is not None)


def typed_container_arg(ty: Any, convert: Callable[[Any], Any | None]) -> Any | None:
    """The dispatcher's type for a typed List, Dict or Set or a jitted function that Numba typed as `ty`
    in a slice; None when `ty` is none of those or holds an item the dispatcher could type otherwise
    (`convert`: the dispatcher's type of a value, slices.dispatcher_arg_type). An array item of any
    layout is the container's own: untrusted_containers left out the containers whose array items'
    layout is decided at run time."""
    if isinstance(ty, nbtypes.Dispatcher):
        return ty  # the jitted function object itself: typeof gives this very type
    if isinstance(ty, nbtypes.ListType):
        return ty if _item(ty.item_type, convert) else None
    if isinstance(ty, nbtypes.DictType):
        if ty.initial_value is not None:
            return None  # a dict display's value: a Python dict at run time
        key, value = ty.key_type, ty.value_type
        if not (_item(key, convert) and _item(value, convert)):
            return None
        return nbtypes.DictType(key, value)  # as typeof gives a typed Dict: no initial value
    if SET_TYPE is not None and isinstance(ty, SET_TYPE):
        if ty.initial_value is not None or not _item(ty.key_type, convert):
            return None
        return SET_TYPE(ty.key_type)  # as typeof gives a typed Set: no initial value
    return None


def _item(ty: Any, convert: Callable[[Any], Any | None]) -> bool:
    """Is `ty` an item type the dispatcher sees as it is (an array of any layout: see above)?"""
    if not ty.is_precise():
        return False
    if isinstance(ty, nbtypes.Array):
        contiguous = ty.copy(layout="C")
        return bool(convert(contiguous) == contiguous)
    return bool(convert(ty) == ty)


def _layout_undecided(ty: Any) -> bool:
    """Does the container type hold an array (at any depth) that Numba types F or A?"""
    if isinstance(ty, nbtypes.Array):
        return ty.layout != "C"
    if isinstance(ty, nbtypes.ListType):
        return _layout_undecided(ty.item_type)
    if isinstance(ty, nbtypes.DictType):
        return _layout_undecided(ty.key_type) or _layout_undecided(ty.value_type)
    if SET_TYPE is not None and isinstance(ty, SET_TYPE):
        return _layout_undecided(ty.key_type)
    if isinstance(ty, nbtypes.BaseTuple):
        return any(_layout_undecided(t) for t in ty.types)  # type: ignore[attr-defined]
    return False


def bound_receivers(func_ir: Any, bound: str) -> set[str]:
    """The variables whose method the variable `bound` is (`$m = getattr(values, append)`)."""
    found = set()
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign) and stmt.target.name == bound:
                value = stmt.value
                if isinstance(value, ir.Expr) and value.op == "getattr":
                    found.add(value.value.name)
    return found


def _differs(put: Any, declared: Any) -> bool:
    return put is None or nbtypes.unliteral(put) != declared


def _declares(func_ir: Any, stmt: Any, typemap: dict[str, Any]) -> bool:
    """Is the statement `x = Dict.empty(...)`, `List.empty_list(...)` or `Set.empty(...)`: a typed
    container whose types a call states?"""
    if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Expr) and stmt.value.op == "call"):
        return False
    try:
        callee = func_ir.get_definition(stmt.value.func)
    except KeyError:
        return False
    attr = getattr(callee, "attr", None) if isinstance(callee, ir.Expr) and callee.op == "getattr" else None
    return attr in ("empty", "empty_list") and isinstance(typemap.get(stmt.target.name), _TYPED)


def _declared_containers(func_ir: Any, typemap: dict[str, Any]) -> list[Any]:
    """The typed container types that a call declares (`Dict.empty(int32, float32)`,
    `List.empty_list(float64)`): whatever is put into such a container is cast to its types, in Python as
    in Numba, so its type is the declared one at run time."""
    return [
        typemap[stmt.target.name]
        for block in func_ir.blocks.values()
        for stmt in block.body
        if _declares(func_ir, stmt, typemap)
    ]


def _layouts_undecided(func_ir: Any, typemap: dict[str, Any]) -> list[Any]:
    """The container types holding an array Numba types F or A that some value gets otherwise than from
    a call declaring its types, a copy, a parameter or a global (whose type is numba.typeof's): `List()`
    given `a[::2]` holds what typeof makes of the first item, C-contiguous or not at run time."""
    found: list[Any] = []
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if not isinstance(stmt, ir.Assign):
                continue
            ty = typemap.get(stmt.target.name)
            if not isinstance(ty, _TYPED) or not _layout_undecided(ty) or ty in found:
                continue
            plain = isinstance(stmt.value, ir.Var | ir.Arg | ir.Global | ir.FreeVar)
            if not plain and not _declares(func_ir, stmt, typemap):
                found.append(ty)
    return found


def untrusted_containers(func_ir: Any, typemap: dict[str, Any]) -> set[str]:
    """Variables holding a typed List, Dict or Set whose run-time type may differ from Numba's (a value
    of another type put into it: which one comes first decides at run time; an array item whose layout is
    decided at run time; every variable of that container type counts, copies made of it included), or a
    Python dict (a display or `dict(...)`, which the dispatcher cannot take; the variable and its plain
    copies)."""
    tainted: list[Any] = _layouts_undecided(func_ir, typemap)
    python_dicts: set[str] = set()
    declared = _declared_containers(func_ir, typemap)

    def taint(ty: Any) -> None:
        if isinstance(ty, _TYPED) and ty not in tainted and ty not in declared:
            tainted.append(ty)

    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.SetItem | ir.StaticSetItem):
                container = typemap.get(stmt.target.name)
                index = stmt.index_var if isinstance(stmt, ir.StaticSetItem) else stmt.index
                put = typemap.get(stmt.value.name)
                if isinstance(container, nbtypes.DictType) and (
                    _differs(typemap.get(index.name), container.key_type)
                    or _differs(put, container.value_type)
                ):
                    taint(container)
                elif isinstance(container, nbtypes.ListType) and _differs(put, container.item_type):
                    taint(container)
                continue
            if not isinstance(stmt, ir.Assign) or not isinstance(stmt.value, ir.Expr):
                continue
            expr = stmt.value
            if expr.op == "build_map":
                python_dicts.add(stmt.target.name)
                continue
            if expr.op != "call":
                continue
            fnty = typemap.get(expr.func.name)
            if isinstance(fnty, nbtypes.Function) and fnty.typing_key is dict:
                python_dicts.add(stmt.target.name)
                continue
            if not isinstance(fnty, nbtypes.BoundFunction):
                continue
            this = fnty.this
            key = fnty.typing_key  # (ListType, "append") for the typed containers' methods
            method = key[-1] if isinstance(key, tuple) else str(key).rsplit(".", 1)[-1]
            args = [typemap.get(v.name) for v in expr.args]
            if isinstance(this, nbtypes.ListType) and method in _LIST_PUTS and args:
                put = args[-1]
                if method == "extend":
                    put = getattr(put, "dtype", getattr(put, "item_type", None))
                if _differs(put, this.item_type):
                    taint(this)
            elif isinstance(this, nbtypes.DictType) and method in _DICT_PUTS and len(args) == 2:
                if _differs(args[0], this.key_type) or _differs(args[1], this.value_type):
                    taint(this)
            elif SET_TYPE is not None and isinstance(this, SET_TYPE) and method in _SET_PUTS and args:
                if _differs(args[0], this.key_type):
                    taint(this)
            elif isinstance(this, _TYPED) and method == "update":
                taint(this)  # another container's items, whose types are not checked here
            if method in (*_LIST_PUTS, *_DICT_PUTS, *_SET_PUTS, "update"):
                for receiver in bound_receivers(func_ir, expr.func.name):
                    if typemap.get(receiver) != this:  # a refined container: the variable's final type
                        taint(typemap.get(receiver))
    found = {name for name, ty in typemap.items() if ty in tainted}
    return found | _copies(func_ir, python_dicts) if python_dicts else found


def _copies(func_ir: Any, names: set[str]) -> set[str]:
    """`names` and the variables that hold the same object: plain copies either way (`b = a`)."""
    pairs = [
        (stmt.target.name, stmt.value.name)
        for block in func_ir.blocks.values()
        for stmt in block.body
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Var)
    ]
    found = set(names)
    changed = True
    while changed:
        changed = False
        for target, source in pairs:
            if (target in found) != (source in found):
                found |= {target, source}
                changed = True
    return found
