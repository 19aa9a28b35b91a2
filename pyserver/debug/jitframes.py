"""How the session names and sorts gdb frames (over pyserver.debug.frames, the Numba-specific part)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyserver.debug import frames


def classify_frame(frame: Mapping[str, Any]) -> str:
    """jit | wrapper | dispatcher | cpython | python-eval | other."""
    return str(frames.classify_frame(frame))


def jit_frame_name(func: str) -> str:
    """`__main__::walk[abi:v1][abi:c8t…](Array<double, 1, C, mutable, aligned>, long long)` ->
    `walk(array(float64, 1d, C), int64)`; gdb's own text when the name is not a Numba symbol."""
    parsed = frames.parse_jit_frame_name(func)
    return parsed.display if parsed is not None else func


def is_numba_library_frame(frame: Mapping[str, Any]) -> bool:
    """Numba's own library code compiled with the user's (numba::np::npyimpl::…), not the user's code."""
    return frames.is_numba_library_frame(frame)


ARRAY_EXPR_KERNEL = frames.ARRAY_EXPR_KERNEL
