"""Ufunc and gufunc kernels (@vectorize, @guvectorize) and @overload implementations: how their types
are described, and where a kernel's come from (an @overload's: pyserver.analysis.worker.infer.overloads).

A kernel is typed per loop signature: its argument types are those of one loop (scalars for a ufunc,
arrays for a gufunc), from the decorator, or recorded from a run (pyserver.record hooks every loop
compile). Advice for a kernel without types speaks of loop signatures, never of `@njit` ones.
"""

from __future__ import annotations

import re
from typing import Any

from pyserver.analysis.worker.discover.discovery import OVERLOAD_KINDS
from pyserver.pysource import layout_dimensions

KERNEL_KINDS = ("vectorize", "guvectorize")
_ARRAY_TEXT = re.compile(r"^(readonly )?array\((\w+), (\d+)d, ([CFA])\)$")


def _array_text(dtype: str, ndim: int, layout: str = "A") -> str:
    dims = [":"] * ndim
    if layout == "C":
        dims[-1] = "::1"
    elif layout == "F":
        dims[0] = "::1"
    return f"{dtype}[{', '.join(dims)}]"


def _slot(param: str) -> str:
    """Where a type goes in an example: named after its parameter, never a made-up type."""
    return f"<type of {param}>"


def example_loop_signature(kind: str, params: list[str], options: dict[str, Any]) -> str:
    """The shape of a loop signature for this kernel, as written in its decorator: the rank of each
    argument where the layout fixes it, a slot for each type (nothing shows them: no example)."""
    if kind == "vectorize":
        return f'@vectorize(["<result type>({", ".join(_slot(p) for p in params or ["x"])})"])'
    layout = str(options.get("layout") or "")
    dimensions = layout_dimensions(layout) if layout else None
    if dimensions is None or sum(len(side) for side in dimensions) != len(params):
        return f'@guvectorize(["void({", ".join(_slot(p) for p in params or ["x"])})"], "<layout>")'
    inputs, outputs = dimensions
    ranks = [*inputs, *(max(n, 1) for n in outputs)]  # outputs are always arrays
    parts = [_slot(p) if n == 0 else _array_text(_slot(p), n) for p, n in zip(params, ranks, strict=True)]
    return f'@guvectorize(["void({", ".join(parts)})"], "{layout}")'


RECORD_HINT = "`python -m pyserver record -- python your_script.py`"
JITCLASS_MEMBER_ADVICE = (
    "Numba compiles a jitclass member for the instance and the arguments of the code that uses it: call it "
    "from Python, or use it (call it, or read it: a property) in a checked jitted function, or record real "
    f"calls with {RECORD_HINT}."
)


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
    if kind == "jitclass-method":
        return JITCLASS_MEMBER_ADVICE
    if kind == "register-jitable":
        return (
            "A `@register_jitable` function is typed from the jitted calls that reach it (called from "
            f"Python it runs as Python): call it from a checked jitted function, or record a run ({RECORD_HINT})."
        )
    if kind in OVERLOAD_KINDS:
        return (
            f"An `@{kind.replace('-', '_')}` implementation is typed from the calls that resolve to it: call "
            f"the function it implements from a checked jitted function, or record a run ({RECORD_HINT})."
        )
    return None


def _typed_params(params: list[str]) -> list[str]:
    """The parameters a signature spells: all but a method's `self` (a jitclass gives its type)."""
    return [p for p in params if p != "self"] or params


def annotation_example(params: list[str]) -> str:
    """The shape of annotations for every parameter: `a: <type of a>, n: <type of n>`."""
    return ", ".join(f"{p}: {_slot(p)}" for p in _typed_params(params) or ["x"])


def njit_signature_example(params: list[str]) -> str:
    """The shape of a signature of the function's arguments (no return type: Numba infers it, and a
    function may return nothing): `(<type of a>, <type of n>)`."""
    slots = [_slot(p) for p in _typed_params(params)]
    return f"({', '.join(slots)}{',' if len(slots) == 1 else ''})"


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


def no_signature_advice(
    kind: str,
    params: list[str],
    options: dict[str, Any],
    to_annotate: list[str] | None = None,
    made_by_call: tuple[str, int, str] | None = None,
) -> str:
    """The last sentence of the no-signature note, in the words of the function's kind. `to_annotate`:
    the parameters without a usable annotation (default: all). `made_by_call`: (the function's name, the
    line of the call that jits it, that call written with a `"SIGNATURE"` or "") for a function no
    decorator jits (`fast = njit(slow)`)."""
    if made_by_call is not None and kind in ("njit", "jit"):
        name, line, call = made_by_call
        signature = njit_signature_example(params)
        written = call.replace('"SIGNATURE"', f'"{signature}"') if call else f'njit("{signature}")({name})'
        return (
            f"Give the call at line {line} a signature of its argument types ({written}) or annotate its "
            "parameters "
            f"({annotation_example(params if to_annotate is None else to_annotate)}): no example, no call the "
            f"analysis follows shows their types. Or call the dispatcher that call makes, or record real calls "
            f"with {RECORD_HINT}."
        )
    if kind in KERNEL_KINDS:
        return (
            f"Give it loop signatures ({example_loop_signature(kind, params, options)}; no example: no call the "
            f"analysis follows shows its types), or record real calls with {RECORD_HINT}: every loop the run "
            "compiles is recorded."
        )
    if kind == "jitclass-method":
        return JITCLASS_MEMBER_ADVICE
    if kind == "register-jitable":
        return f"Call it from a checked jitted function, or record real calls with {RECORD_HINT}."
    if kind in OVERLOAD_KINDS:
        return (
            "Call the function it implements from a checked jitted function, or record real calls with "
            f"{RECORD_HINT}."
        )
    return (
        f'Give it a signature of its argument types (@njit("{njit_signature_example(params)}")) or annotate '
        f"its parameters ({annotation_example(params if to_annotate is None else to_annotate)}): no example,"
        " no call the analysis follows shows their "
        f"types. Or call it from a checked jitted function, or record real calls with {RECORD_HINT}."
    )


# --------------------------------------------------------------------------------------------------
# Functions only a run made jitted (a gufunc built when an object is made, `njit(f)` inside a function)


def add_recorded_only(load: Any, path: str, root: str, stores: list[dict[str, Any]]) -> None:
    """Give the analysis the functions of this file that a recorded run compiled but that loading the
    module did not make jitted: `Builder(f)` running `guvectorize([...], layout)(f)` only when the
    program made one, `njit(step_py)` inside a function. Each gets a lazy dispatcher of its kind (a
    ufunc or gufunc kernel when its recorded entries are loops), so it is found, placed and typed from
    the recorded signatures like any other."""
    import os

    from pyserver import numba_api
    from pyserver.record import store, types_codec

    module = getattr(load, "module", None)
    if module is None:
        return
    prefix = store.function_key(os.path.relpath(path, root), "")
    real = os.path.realpath(path)
    for data in stores:
        for key in data.get("functions", {}):
            qualname = key[len(prefix) :] if key.startswith(prefix) else None
            if not qualname or "<locals>" in qualname or qualname in load.recorded:
                continue
            py_func = types_codec.walk_qualname(module, qualname)
            code = getattr(py_func, "__code__", None)
            if code is None or os.path.realpath(code.co_filename) != real:
                continue  # not a plain function of this file (a dispatcher made at load is already known)
            entries = store.entries(data, key)
            if any(e.kernel == "stencil" for e in entries):
                continue  # a stencil's kernel: typed from its recorded compiles (recorded_types.py)
            if entries and all(e.module_copy for e in entries):
                # Numba compiled the function of a copy of this module, whose globals differ (another
                # module swapped them): typed with this module's, its calls and names would not be those
                # Numba saw. Its recorded compiles say what Numba typed (recorded_types.py).
                continue
            kernel = next((e for e in entries if e.kernel), None)
            kind = kernel.kernel if kernel is not None and kernel.kernel in KERNEL_KINDS else "jit"
            options: dict[str, Any] = (
                {"layout": kernel.layout} if kernel is not None and kernel.layout else {}
            )
            dispatcher = numba_api.nopython_dispatcher(py_func)
            load.recorded[qualname] = numba_api.Recorded(py_func, dispatcher, str(kind), [], options)
            if kernel is None and vars(module).get(qualname) is py_func:
                # The run compiled it under its own name, where its jitted callers found it: a jit
                # decorator the program picks at run time (`jit if os.getenv(...) else plain`) left the
                # name a dispatcher there, so its callers are typed against one here too.
                setattr(module, qualname, dispatcher)
