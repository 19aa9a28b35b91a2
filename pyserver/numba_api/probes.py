"""What the probes of a Python caller's slice read of Numba (analysis/worker/signatures/caller_probes.py):
the type inference gives a constant, and whether two sets of constants have the same Numba types."""

from __future__ import annotations

from typing import Any

import numba
from numba.core import types as nbtypes
from numba.core.registry import cpu_target


def inferred_constant_type(value: Any) -> Any | None:
    """The type Numba's inference gives a constant assigned to a variable (TypeInferer.typeof_const: its
    literal type where it has one, else its value's type); None where it raises, which the slice then
    reports as Numba would."""
    try:
        return nbtypes.maybe_literal(value) or cpu_target.typing_context.resolve_value_type(value)
    except Exception:
        return None


def same_numba_types(numbers: tuple[Any, ...], others: tuple[Any, ...]) -> bool:
    """Do these constants have the same Numba types, position by position (int64 both, not uint64)?"""
    try:
        return all(
            type(a) is type(b) and numba.typeof(a) == numba.typeof(b)
            for a, b in zip(numbers, others, strict=True)
        )
    except (ValueError, TypeError):  # an int too large for any integer type
        return False
