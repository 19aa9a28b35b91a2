"""Object-mode compiles (forceobj=True, lifted loops) and the IR/assembly views: the only full compiles.

Part of the numba_api fence (see its __init__): Numba internals live only in this package.
"""

from __future__ import annotations

import io
import time
import warnings
from dataclasses import dataclass
from typing import Any

from numba.core import errors, ir
from numba.core import types as nbtypes

from pyserver.numba_api.callees import callee_resolver_disabled
from pyserver.numba_api.decorator_hooks import original_jit_factory
from pyserver.numba_api.inference import ErrorInfo, error_info

# --------------------------------------------------------------------------------------------------
# Object mode (forceobj=True): a real compile with generic object types, to list lifted loops


@dataclass
class ObjectModeResult:
    lifted_lines: list[int]
    error: ErrorInfo | None
    elapsed_ms: float


def compile_object_mode(dispatcher: Any, nargs: int) -> ObjectModeResult:
    started = time.perf_counter()
    filename = dispatcher.py_func.__code__.co_filename
    args = (nbtypes.pyobject,) * nargs
    lines: list[int] = []
    error = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            dispatcher.compile(args)
            cres = dispatcher.overloads[args]
            for lifted in getattr(cres, "lifted", ()) or ():
                loc = lifted.func_ir.loc
                lines.append(_first_loop_line(lifted.func_ir) or int(loc.line))
        except Exception as exc:
            error = error_info(exc, filename)
            if error.kind == "other" and not isinstance(exc, errors.NumbaError):
                # Numba's own compiler crashed (e.g. loop lifting on Python >= 3.12 in some releases):
                # kind "other", never the user's typing error; the exception's type says what it was.
                error.text = f"{type(exc).__name__}: {error.text}"
    return ObjectModeResult(sorted(set(lines)), error, (time.perf_counter() - started) * 1000.0)


def _first_loop_line(func_ir: Any) -> int | None:
    lines = [stmt.loc.line for block in func_ir.blocks.values() for stmt in block.body if stmt.loc.line]
    return min(lines) if lines else None


# --------------------------------------------------------------------------------------------------
# IR views: the only place a full compile runs on demand


def compile_for_view(dispatcher: Any, args: tuple[Any, ...]) -> Any:
    """A real compile (LLVM included) of a fresh debug-info dispatcher, for the source-line maps."""
    options = dict(dispatcher.targetoptions)
    options["debug"] = True
    # Numba's own factory, not the recording hook: this dispatcher must not replace the recorded one.
    factory = original_jit_factory()
    fresh = factory(None, dict(dispatcher.locals), "cpu", False, options)(dispatcher.py_func)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with callee_resolver_disabled():
            fresh.compile(args)
    return fresh


def view_types(fresh: Any, args: tuple[Any, ...]) -> str:
    buffer = io.StringIO()
    fresh.inspect_types(file=buffer, signature=args)
    return buffer.getvalue()


def view_numba_ir(fresh: Any, args: tuple[Any, ...]) -> tuple[str, dict[int, list[int]]]:
    cres = fresh.overloads[args]
    blocks = cres.type_annotation.blocks
    typemap = cres.type_annotation.typemap
    out: list[str] = []
    line_map: dict[int, list[int]] = {}
    for label in sorted(blocks):
        block = blocks[label]
        out.append(f"label {label}:")
        for stmt in block.body:
            text = f"    {stmt}"
            if isinstance(stmt, ir.Assign) and stmt.target.name in typemap:
                text += f"  :: {typemap[stmt.target.name]}"
            if stmt.loc is not None and stmt.loc.line:
                line_map.setdefault(int(stmt.loc.line), []).append(len(out))
            out.append(text)
    return "\n".join(out) + "\n", line_map


def view_llvm(fresh: Any, args: tuple[Any, ...]) -> str:
    text: str = fresh.inspect_llvm(args)
    return text


def view_asm(fresh: Any, args: tuple[Any, ...]) -> str:
    text: str = fresh.inspect_asm(args)
    return text
