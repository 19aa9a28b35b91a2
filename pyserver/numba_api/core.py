"""The core of the numba_api fence (see the package's docstring): the Numba version and its shims, the
typing registries, and what the rest of the package reads of dispatchers. Inference is in
inference.py, the callee resolver in callees.py, the decorator hooks in decorator_hooks.py, and the
replaced Numba methods in patches.py (installed by `install()`).
"""

from __future__ import annotations

import dis
import re
import types as pytypes
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numba
from numba.core import errors
from numba.core import types as nbtypes
from numba.core.registry import cpu_target

NUMBA_VERSION = numba.__version__
NUMBA_VERSION_TUPLE = tuple(int(p) for p in re.findall(r"\d+", NUMBA_VERSION)[:2])
Type = nbtypes.Type

# --- version shims: every difference between the supported Numba releases (pyserver/versions.py) ---
# An unsupported bytecode raises UnsupportedBytecodeError from 0.61 on, UnsupportedError before that
# (0.59 and 0.60 have no such name); both are the diagnostic code `unsupported`.
UNSUPPORTED_ERRORS: tuple[type[BaseException], ...] = tuple(
    cls
    for cls in (errors.UnsupportedError, getattr(errors, "UnsupportedBytecodeError", None))
    if cls is not None
)
# --- end of version shims ---


def refresh_contexts() -> None:
    """Load the typing registries once (else globals such as `range` are untyped)."""
    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()


def unliteral(ty: Any) -> Any:
    return nbtypes.unliteral(ty)


def is_literal(ty: Any) -> bool:
    return isinstance(ty, nbtypes.Literal)


def function_id(py_func: Any) -> tuple[str, str]:
    return (py_func.__code__.co_filename, py_func.__qualname__)


def dispatcher_py_func(dispatcher: Any) -> Any:
    return dispatcher.py_func


def dispatcher_options(dispatcher: Any) -> dict[str, Any]:
    """The options a dispatcher was made with (none for the CUDA simulator's kernels, which keep none)."""
    return dict(getattr(dispatcher, "targetoptions", None) or {})


def jitclass_methods(obj: Any) -> dict[str, Any] | None:
    """For a @jitclass class: {method name: (py_func, instance type)}; None for anything else."""
    class_type = getattr(obj, "class_type", None)
    if class_type is None or not hasattr(class_type, "jit_methods"):
        return None
    return {
        name: (dispatcher.py_func, class_type.instance_type)
        for name, dispatcher in class_type.jit_methods.items()
    }


def jitclass_member(obj: Any, name: str) -> tuple[str, Any] | None:
    """For a @jitclass class and one of its jitted members: ("method", instance type) for a method,
    ("property", ...) for a property's getter (its `self` is the instance too), ("static", ...) for a
    static method (no instance passed); None for anything else."""
    class_type = getattr(obj, "class_type", None)
    if class_type is None or not hasattr(class_type, "jit_methods"):
        return None
    if name in class_type.jit_methods:
        return "method", class_type.instance_type
    if "get" in getattr(class_type, "jit_props", {}).get(name, {}):
        return "property", class_type.instance_type
    if name in getattr(class_type, "jit_static_methods", {}):
        return "static", class_type.instance_type
    return None


def numba_class_kind(obj: Any) -> str | None:
    """What Numba makes of a class called in Python code: "structref" for a StructRef proxy that
    `structref.define_proxy` registered (`Point(3.0, 4.0)` from Python and from jitted code runs the
    constructor Numba compiled, which types the fields from the values), "extension" for another class an
    extension registered typing for (`typeof_impl`, `type_callable`, `@overload`), None for a class Numba cannot type."""
    from numba.core.typing.typeof import typeof_impl
    from numba.experimental import structref

    if not isinstance(obj, type):
        return None
    if obj in typeof_impl.registry:  # its instances are typed from the running object
        return "extension"
    cpu_target.typing_context.refresh()  # the module's registrations, made since the last refresh
    try:
        cpu_target.typing_context.resolve_value_type(obj)
    except (errors.TypingError, ValueError):
        return None
    return "structref" if issubclass(obj, structref.StructRefProxy) else "extension"


def jitclass_class_of(ty: Any) -> Any | None:
    """The instance type of a jitclass's class type (what Numba types the class `Bag` as), else None."""
    return ty.instance_type if isinstance(ty, nbtypes.ClassType) else None


def mark_workspace_dispatcher(dispatcher: Any) -> None:
    """Calls to this dispatcher are typed by inference (the resolver), never by compiling it."""
    try:
        dispatcher._numba_lens_workspace = True
    except AttributeError:
        pass


def is_workspace_dispatcher(value: Any) -> bool:
    """A dispatcher of a workspace function (marked by mark_workspace_dispatcher)."""
    return bool(getattr(value, "_numba_lens_workspace", False))


# Numba's IR passes list each statement's variables again and again (use-def maps, liveness): its

# Dispatchers of lifted loops and with blocks: Numba types and compiles them itself.
LIFTED_DISPATCHERS = {"LiftedLoop", "LiftedWith", "ObjModeLiftedWith"}
# The opcodes of a `with` block (they differ between Python versions).
WITH_OPCODES = frozenset(
    dis.opmap[name]
    for name in ("BEFORE_WITH", "SETUP_WITH", "BEFORE_ASYNC_WITH", "SETUP_ASYNC_WITH")
    if name in dis.opmap
)


def nested_codes(code: Any) -> list[Any]:
    """A code object and those of the functions, lambdas and comprehensions defined in it."""
    found = [code]
    for current in found:
        found.extend(c for c in current.co_consts if isinstance(c, pytypes.CodeType))
    return found


@contextmanager
def switched_off(switch: list[bool]) -> Iterator[None]:
    """A replacement of Numba's, off inside (`switch[0]` False): Numba's own runs, to compare the two."""
    previous = switch[0]
    switch[0] = False
    try:
        yield
    finally:
        switch[0] = previous
