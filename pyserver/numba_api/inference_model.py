"""What inference of one function found: the data the worker's stages read (errors, warnings,
variables, calls, return sites). Plain data, apart from the passes that fill it, so that the parfor
report can use it without importing the pipeline."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ErrorInfo:
    kind: str  # "typing" | "unsupported" | "unify" | "untyped" | "other"
    text: str  # Numba's full text, highlighting off
    line: int | None  # 1-based, when Numba knows it and it is in the function's file
    filename: str | None
    callee: tuple[str, str] | None = None  # for a CalleeTypingError: the callee's (file, qualname)
    callee_args: tuple[Any, ...] | None = None
    # For an untyped empty list: the element type its other uses give it (Numba's text), when known.
    element_type: str | None = None


@dataclass
class WarningInfo:
    category: str  # "performance" | "deprecation" | "other"
    text: str
    line: int | None
    filename: str | None = None


@dataclass
class VariableInfo:
    name: str
    ssa_name: str
    type: Any
    line: int
    is_arg: bool
    used_lines: list[int] = field(default_factory=list)  # 1-based lines of the statements reading it
    phi: bool = False


# SSA versions are `x`, `x.1`, and for a re-versioned one `x.1.2`: the source name is what precedes them.
_SSA_SUFFIX = re.compile(r"(\.\d+)+$")


def source_name(ssa_name: str) -> str:
    return _SSA_SUFFIX.sub("", ssa_name)


@dataclass
class CallInfo:
    callee: tuple[str, str]  # a workspace function: (file, qualname)
    args: tuple[Any, ...]
    line: int


@dataclass
class ReturnSite:
    line: int
    type: Any | None


@dataclass
class Inference:
    args: tuple[Any, ...]
    return_type: Any | None = None
    errors: list[ErrorInfo] = field(default_factory=list)
    warnings: list[WarningInfo] = field(default_factory=list)
    variables: list[VariableInfo] = field(default_factory=list)
    calls: list[CallInfo] = field(default_factory=list)
    returns: list[ReturnSite] = field(default_factory=list)
    call_types: list[tuple[int, str, str]] = field(default_factory=list)  # (line, what is called, signature)
    elapsed_ms: float = 0.0
    list_element: Any | None = None  # see callee_list_element (only for that probe)
    parallel: list[ParforFact] | None = None  # parallel=True only: what the parfor pass made of the loops
    # Set when these types cannot be inferred as they stand and nothing is wrong with the code: the
    # function asks for literal arguments (numba.literally) whose values the signature does not carry.
    unknown_reason: str | None = None
    literal_request: frozenset[int] = frozenset()  # the arguments numba.literally asked for (their indices)


@dataclass
class ParforFact:
    """One parallel region (a parfor) after fusion."""

    id: int
    line: int  # 1-based line in the function's file (for a NumPy call: the call's line)
    what: str  # "prange loop", "array expression ((a mul 2.0) add 1.0)", "np.sum", ...
    fused: list[tuple[int, str]] = field(default_factory=list)  # (line, what) of the parfors fused into it
    serial: list[tuple[int, str]] = field(default_factory=list)  # nested parfors that run serially in it
    not_fused: list[tuple[int, str]] = field(
        default_factory=list
    )  # (line of the other parfor, Numba's reason)
    # Allocations in the region's body that lowering moves out of the loop (once per thread, not per
    # iteration), and those it keeps inside with Numba's reason: (line, variable or "an array"[, reason]).
    hoisted: list[tuple[int, str]] = field(default_factory=list)
    not_hoisted: list[tuple[int, str, str]] = field(default_factory=list)
