"""Typing calls to workspace functions without compiling them: the callee resolver in effect (a context
variable), the error a callee that cannot be typed raises, and what a caller's typing reads of a
workspace dispatcher. The Numba methods that consult the resolver are replaced by `patches.install()`.
"""

from __future__ import annotations

import inspect
import itertools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from numba.core import errors
from numba.core import types as nbtypes
from numba.core.dispatcher import _DispatcherBase

from pyserver.caches import BoundedCache, bounded_cache
from pyserver.numba_api.core import LIFTED_DISPATCHERS, function_id, is_workspace_dispatcher


class CalleeTypingError(errors.TypingError):
    """A workspace callee failed inference for the argument types a caller passes."""

    def __init__(self, message: str, callee: Any, args: tuple[Any, ...]) -> None:
        # Numba re-wraps typing errors as new TypingErrors with the text only (no __cause__ outside
        # developer mode), so the callee travels as a marker in the text.
        number = next(_callee_numbers)
        _callee_failures[number] = (function_id(callee.py_func), args)
        super().__init__(f"{message} [numba-lens-callee:{number}]")
        self.callee = callee
        self.callee_args = args


# A failure's number is in its message until the caller's diagnostic reads it back, within the same
# inference: the most recent ones are enough.
_callee_numbers = itertools.count()
_callee_failures: BoundedCache[int, tuple[tuple[str, str], tuple[Any, ...]]] = bounded_cache(
    "numba_api.callee_failures", 4096
)
_CALLEE_MARKER = re.compile(r" \[numba-lens-callee:(\d+)\]")


# The signatures a call to this workspace callee may resolve to, as (argument types, return type) pairs:
# the callee's declared signatures, or one inferred for the caller's argument types. Raises
# CalleeTypingError when the callee cannot be typed.
CalleeResolver = Callable[[Any, tuple[Any, ...]], list[tuple[tuple[Any, ...], Any]]]
_callee_resolver: ContextVar[CalleeResolver | None] = ContextVar("numba_lens_callee_resolver", default=None)


def callee_of_message(text: str) -> tuple[str, tuple[str, str] | None, tuple[Any, ...] | None]:
    """A typing error's text without its callee marker, and the callee (file, qualname) and argument
    types the marker stood for (None, None where it has none or it is no longer remembered)."""
    marker = _CALLEE_MARKER.search(text)
    if marker is None:
        return text, None, None
    found = _callee_failures.get(int(marker.group(1)))
    text = _CALLEE_MARKER.sub("", text)
    return (text, found[0], found[1]) if found is not None else (text, None, None)


def current_callee_resolver() -> CalleeResolver | None:
    """The resolver in effect here (None: Numba types and compiles callees itself)."""
    return _callee_resolver.get()


def typed_only_by_resolver(value: Any) -> bool:
    """A workspace dispatcher that a caller's typing sees only through the callee resolver's answers
    (argument types -> return type): never inlined into the caller, not a lifted loop. What else of it
    the caller's typing reads (its parameters and defaults, which fold the call's arguments) is in
    `resolver_token`."""
    if not is_workspace_dispatcher(value) or not isinstance(value, _DispatcherBase):
        return False
    if type(value).__name__ in LIFTED_DISPATCHERS:
        return False
    return dict(getattr(value, "targetoptions", {}) or {}).get("inline", "never") == "never"


def resolver_token(dispatcher: Any) -> str:
    """What a caller's typing reads of a dispatcher besides the resolver's answers: its name, options
    and parameters (the folding of keyword and omitted arguments)."""
    py_func = dispatcher.py_func
    options = sorted((k, repr(v)) for k, v in dict(dispatcher.targetoptions).items())
    try:
        parameters = str(inspect.signature(py_func))
    except (TypeError, ValueError):
        parameters = "?"
    return f"{py_func.__module__}.{py_func.__qualname__}{parameters}{options}"


@contextmanager
def callee_resolver_disabled() -> Iterator[None]:
    token = _callee_resolver.set(None)
    try:
        yield
    finally:
        _callee_resolver.reset(token)


@contextmanager
def callee_resolver(resolver: CalleeResolver) -> Iterator[None]:
    token = _callee_resolver.set(resolver)
    try:
        yield
    finally:
        _callee_resolver.reset(token)


@contextmanager
def python_call_types() -> Iterator[None]:
    """Within a slice, a workspace callee is typed for the types its dispatcher gives the Python values
    passed at run time: `steps = 3; kernel(a, steps)` compiles kernel for int64, not Literal[int](3)
    (Numba-to-Numba calls keep literals: the analysis installs its own resolver for those). The
    callee's inference is then the one the analysis of that signature reuses from its memo.

    Wraps the resolver in effect around it (the Python callers' own)."""
    installed = current_callee_resolver()
    if installed is None:
        yield
        return
    resolve = installed

    def at_run_time(dispatcher: Any, args: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], Any]]:
        return resolve(dispatcher, tuple(nbtypes.unliteral(a) for a in args))

    with callee_resolver(at_run_time):
        yield
