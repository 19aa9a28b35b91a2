"""A faster `copy.deepcopy` of a block of Numba IR, with the same result.

Numba deep-copies a callee's IR block by block at every site where it inlines the callee (twice per
site: one copy to change, one kept unchanged), with Python's generic deepcopy, which looks up how to
copy each of the many small IR objects one by one. `deepcopy_block` copies the same objects the same
way (a new object of the same class whose attributes are copies, sharing the memo, Numba's own
`__deepcopy__` rules for variables and constants) with that lookup made once per class; anything that
is not plain IR goes through `copy.deepcopy` itself.
"""

from __future__ import annotations

import copy
import copyreg
import types
from typing import Any

from numba.core import ir

# What copy.deepcopy returns as is (its "atomic" types).
_ATOMIC: frozenset[type] = frozenset(
    {
        type(None),
        type(Ellipsis),
        type(NotImplemented),
        int,
        float,
        bool,
        complex,
        bytes,
        str,
        types.CodeType,
        type,
        range,
        types.BuiltinFunctionType,
        types.FunctionType,
        property,
    }
)
_PLAIN, _OTHER = 1, 2
_KINDS: dict[type, int] = {}
_COPY_HOOKS = ("__deepcopy__", "__reduce_ex__", "__reduce__", "__getstate__", "__setstate__", "__slots__")


def _kind(cls: type) -> int:
    """_PLAIN: an IR class that deepcopy copies as a new object with a copy of its attribute dict."""
    kind = _OTHER
    own_rule = cls in copyreg.dispatch_table or cls in copy._deepcopy_dispatch  # type: ignore[attr-defined]
    if cls.__module__ == ir.__name__ and cls.__new__ is object.__new__ and not own_rule:
        if not any(hook in base.__dict__ for base in cls.__mro__[:-1] for hook in _COPY_HOOKS):
            kind = _PLAIN
    _KINDS[cls] = kind
    return kind


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    cls = type(value)
    if cls in _ATOMIC:
        return value
    found = memo.get(id(value), memo)
    if found is not memo:
        return found
    if cls is list:
        copied_list: list[Any] = []
        memo[id(value)] = copied_list
        copied_list.extend([_copy(item, memo) for item in value])
    elif cls is dict:
        copied_dict: dict[Any, Any] = {}
        memo[id(value)] = copied_dict
        for key, item in value.items():
            copied_dict[_copy(key, memo)] = _copy(item, memo)
    elif cls is ir.Var:  # Var.__deepcopy__, with its scope copied here
        copied_var = ir.Var(_copy(value.scope, memo), value.name, value.loc)
        memo[id(value)] = copied_var
        return copied_var
    elif (_KINDS.get(cls) or _kind(cls)) == _PLAIN:
        return _copy_plain(value, memo)
    else:
        return copy.deepcopy(value, memo)
    memo.setdefault(id(memo), []).append(value)  # as deepcopy keeps the original alive
    return memo[id(value)]


def _copy_plain(value: Any, memo: dict[int, Any]) -> Any:
    copied = object.__new__(type(value))
    memo[id(value)] = copied
    state = value.__dict__
    if state:
        copied_state: dict[str, Any] = {}
        memo[id(state)] = copied_state
        for key, item in state.items():
            copied_state[key] = _copy(item, memo)
        copied.__dict__.update(copied_state)
    memo.setdefault(id(memo), []).append(value)
    return copied


def deepcopy_block(block: Any, memo: dict[int, Any]) -> Any:
    """copy.deepcopy(block) for an ir.Block (called as its __deepcopy__, with deepcopy's memo)."""
    return _copy_plain(block, memo)
