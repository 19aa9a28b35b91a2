"""Numba's bytecode-to-IR translation, made once per function while analysing.

Each signature a function is typed for (and each time a caller's typing types it as a callee) starts
with the same translation of its bytecode to Numba IR, which reads no argument type: only the code,
and the values of the globals and closure cells it names at that moment. The pass below keeps a
pristine copy of the IR it translated, keyed on the function and its code, and starts a later typing
from a copy of it, as long as every global and cell the code names still holds the same object (else
it translates again). A function is kept from its second translation on (one typed once costs no
copy). The IR blocks are copied by ir_copy (deepcopy's result, one memo for the whole function, as the
translation shares variables and scopes between blocks); the function identity is the typing's own.
"""

from __future__ import annotations

import builtins
import copy
from contextlib import AbstractContextManager
from typing import Any

from numba.core import interpreter
from numba.core.compiler_machinery import FunctionPass, register_pass

from pyserver.caches import BoundedCache, bounded_cache
from pyserver.numba_api.core import switched_off
from pyserver.numba_api.ir_copy import deepcopy_block

_MISSING = object()
# (function, code) -> (the objects its names and cells held when translated, the pristine IR; None after
# the first translation: a function typed once is not copied)
_translations: BoundedCache[tuple[Any, Any], tuple[tuple[Any, ...], Any | None]] = bounded_cache(
    "numba_api.translations", 512
)
_enabled = [True]  # off only to compare with Numba's own translation (tests)
_reused = [0]


def translations_reused() -> int:
    """How many typings so far started from a copy of an earlier translation."""
    return _reused[0]


def translate_memo_disabled() -> AbstractContextManager[None]:
    """Numba's own translation for every typing inside (to compare the two)."""
    return switched_off(_enabled)


def _named_objects(func: Any, code: Any) -> tuple[Any, ...]:
    """What the translation reads outside the code: each name's global (or builtin), each cell's value."""
    namespace = getattr(func, "__globals__", {})
    found: list[Any] = []
    for name in code.co_names:
        value = namespace.get(name, _MISSING)
        found.append(getattr(builtins, name, _MISSING) if value is _MISSING else value)
    for cell in getattr(func, "__closure__", None) or ():
        try:
            found.append(cell.cell_contents)
        except ValueError:  # an empty cell
            found.append(_MISSING)
    return tuple(found)


def _copy_ir(func_ir: Any, func_id: Any) -> Any:
    memo: dict[int, Any] = {}
    copied = copy.copy(func_ir)
    copied.blocks = {label: deepcopy_block(block, memo) for label, block in func_ir.blocks.items()}
    copied._definitions = copy.deepcopy(func_ir._definitions, memo)
    copied.func_id = func_id
    copied._reset_analysis_variables()
    return copied


def _same(first: tuple[Any, ...], second: tuple[Any, ...]) -> bool:
    return len(first) == len(second) and all(a is b for a, b in zip(first, second, strict=True))


@register_pass(mutates_CFG=True, analysis_only=False)
class LensTranslateByteCode(FunctionPass):
    """Numba's TranslateByteCode, from a copy of an earlier translation of the same function when the
    objects its code names are unchanged."""

    _name = "numba_lens_translate_bytecode"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        func_id = state.func_id
        func = func_id.func
        try:
            key = (func, func_id.code)
            named = _named_objects(func, func_id.code)
            kept = _translations.get(key) if _enabled[0] else None
        except TypeError:  # an unhashable function object
            key, named, kept = None, (), None
        seen = kept is not None and _same(kept[0], named)
        if seen and kept is not None and kept[1] is not None:
            state.func_ir = _copy_ir(kept[1], func_id)
            _reused[0] += 1
            return True
        func_ir = interpreter.Interpreter(func_id).interpret(state.bc)
        if key is not None and _enabled[0]:
            _translations[key] = (named, _copy_ir(func_ir, func_id) if seen else None)
        state.func_ir = func_ir
        return True
