"""Ufunc and gufunc kernels (@vectorize, @guvectorize) and @overload implementations: how their types
are described and where they come from.

A kernel is typed per loop signature: its argument types are those of one loop (scalars for a ufunc,
arrays for a gufunc), from the decorator, or recorded from a run (pyserver.record hooks every loop
compile). Advice for a kernel without types speaks of loop signatures, never of `@njit` ones.
"""

from __future__ import annotations

import re
from typing import Any

KERNEL_KINDS = ("vectorize", "guvectorize")
_PLACEHOLDER = "float64"
_ARRAY_TEXT = re.compile(r"^(readonly )?array\((\w+), (\d+)d, ([CFA])\)$")


def layout_dimensions(layout: str) -> tuple[list[int], list[int]] | None:
    """The number of core dimensions of each input and output of a gufunc layout ("(n),()->(n)")."""
    inputs, arrow, outputs = layout.replace(" ", "").partition("->")
    if not arrow:
        return None

    def groups(text: str) -> list[int]:
        return [len([d for d in group.split(",") if d]) for group in re.findall(r"\(([^)]*)\)", text)]

    return groups(inputs), groups(outputs)


def _array_text(dtype: str, ndim: int, layout: str = "A") -> str:
    dims = [":"] * ndim
    if layout == "C":
        dims[-1] = "::1"
    elif layout == "F":
        dims[0] = "::1"
    return f"{dtype}[{', '.join(dims)}]"


def example_loop_signature(kind: str, params: list[str], options: dict[str, Any]) -> str:
    """A loop signature of the right shape for this kernel, as written in its decorator."""
    if kind == "vectorize":
        inner = ", ".join(_PLACEHOLDER for _ in params) or _PLACEHOLDER
        return f'@vectorize(["{_PLACEHOLDER}({inner})"])'
    layout = str(options.get("layout") or "")
    dimensions = layout_dimensions(layout) if layout else None
    if dimensions is None or sum(len(side) for side in dimensions) != len(params):
        inner = ", ".join(_array_text(_PLACEHOLDER, 1) for _ in params)
        return f'@guvectorize(["void({inner})"], "(n)->()")'
    inputs, outputs = dimensions
    parts = [_PLACEHOLDER if n == 0 else _array_text(_PLACEHOLDER, n) for n in inputs]
    parts += [_array_text(_PLACEHOLDER, max(n, 1)) for n in outputs]  # outputs are always arrays
    return f'@guvectorize(["void({", ".join(parts)})"], "{layout}")'


RECORD_HINT = "`python -m pyserver record -- python your_script.py`"


def how_to_get_types(kind: str, name: str, params: list[str], options: dict[str, Any]) -> str | None:
    """What to do when a kernel or an @overload has no types (None: the function's kind is not one of
    these, and the general advice for @njit applies)."""
    if kind in KERNEL_KINDS:
        what = "ufunc" if kind == "vectorize" else "gufunc"
        return (
            f"Numba compiles a lazy `@{kind}` {what} loop by loop when it is called, so its types are unknown "
            f"until then. To get them: give it loop signatures (`{example_loop_signature(kind, params, options)}`)"
            f", or run your program or tests once with signature recording ({RECORD_HINT}): every loop "
            "the run compiles is recorded."
        )
    if kind in ("overload", "overload-method"):
        return (
            f"An `@{kind.replace('-', '_')}` implementation is typed from the calls that resolve to it: call "
            f"the function it implements from a checked jitted function, or record a run ({RECORD_HINT})."
        )
    return None


def annotation_example(params: list[str]) -> str:
    """Valid syntax for annotating every parameter: `(a: float64[:], out: float64[:])`."""
    return "(" + ", ".join(f"{p}: {_array_text(_PLACEHOLDER, 1)}" for p in params or ["x"]) + ")"


def loop_signature(kind: str, args: list[str], return_type: str | None) -> str | None:
    """One loop of a kernel as its decorator would declare it (`void(float64[:], float64[::1])`), from the
    readable argument types; None when a type has no such spelling (then the plain types stand)."""
    if kind not in KERNEL_KINDS:
        return None
    parts = []
    for text in args:
        match = _ARRAY_TEXT.match(text)
        if match is None:
            if "(" in text or " " in text:
                return None
            parts.append(text)
        elif match.group(1):
            return None  # readonly arrays have no spelling in a signature string
        else:
            parts.append(_array_text(match.group(2), int(match.group(3)), match.group(4)))
    result = "void" if kind == "guvectorize" else (return_type or "")
    if not result or " " in result or "(" in result:
        return None
    return f"{result}({', '.join(parts)})"


def no_signature_advice(kind: str, params: list[str], options: dict[str, Any]) -> str:
    """The last sentence of the no-signature note, in the words of the function's kind."""
    if kind in KERNEL_KINDS:
        return (
            f"Give it loop signatures ({example_loop_signature(kind, params, options)}), or record real calls "
            f"with {RECORD_HINT}: every loop the run compiles is recorded."
        )
    if kind in ("overload", "overload-method"):
        return (
            "Call the function it implements from a checked jitted function, or record real calls with "
            f"{RECORD_HINT}."
        )
    return (
        f'Give it a signature (@njit("float64(float64[:])")), annotate its parameters '
        f"{annotation_example(params)}, call it from a checked jitted function, or record real calls "
        f"with {RECORD_HINT}."
    )
