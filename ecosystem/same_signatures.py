"""Compile with Numba exactly the signatures `check` typed (truth.py's ECO_SIGNATURES mode).

The input is a JSON list of the signatures check showed, one entry each: `path` (relative to BASE),
`qualname`, `line` (the `def`'s), `kind`, `args` (the shown text) and `arg_types` (types_codec's
encoding of what the dispatcher compiles, or null when the types do not encode exactly). Each is
compiled with `dispatcher.compile(types)` on the live dispatcher of that function (an @overload's
typing function through a minimal jitted caller); the caller's CompileTimer times them. A function that
only exists once another compiled (an @overload's implementation, a closure) is looked for again after
each round of compiles. What cannot be compiled is kept with the reason, so that the reference's
coverage is known. Not part of pyserver.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

ROUNDS = 5  # rounds of "compile what has a dispatcher now": an implementation appears in the next one


def compile_signatures(
    wanted: list[dict[str, Any]],
    base: str,
    dispatchers: Callable[[], list[Any]],
    timer: Any,
    not_imported: Iterable[str] = (),
) -> dict[str, Any]:
    """Compile each wanted signature; {"wanted", "compiled", "not_compiled": [{..., "reason"}], and the
    time of the compiles that failed}. A failed compile is no compile of the signature: its time is taken
    out of `timer` (truth.CompileTimer) and reported apart."""
    from pyserver.analysis.api import OVERLOAD_KINDS
    from pyserver.record import types_codec

    pending: list[dict[str, Any]] = []
    not_compiled: list[dict[str, Any]] = []
    for entry in wanted:
        if entry.get("arg_types") is None:
            not_compiled.append(_failed(entry, "its types have no exact encoding"))
        else:
            pending.append(entry)
    compiled = 0
    failed_s = failed_cpu_s = 0.0
    resolve = _resolver(base)
    for _round in range(ROUNDS):
        found = _by_function(dispatchers(), base)
        templates = _overload_templates(base) if any(e["kind"] in OVERLOAD_KINDS for e in pending) else {}
        progress = False
        waiting = []
        for entry in pending:
            if entry["kind"] in OVERLOAD_KINDS:
                target = _matching(
                    templates.get((entry["path"], entry["qualname"]), []), int(entry["line"]), None
                )
            else:
                candidates = found.get((entry["path"], entry["qualname"]), [])
                target = _matching(candidates, int(entry["line"]), entry.get("parallel"))
            if target is None:
                waiting.append(entry)
                continue
            progress = True
            try:
                arg_types = tuple(types_codec.decode(t, resolve) for t in entry["arg_types"])
            except Exception as exc:
                not_compiled.append(_failed(entry, f"its types do not decode here: {exc}"))
                continue
            before = timer.snapshot()
            try:
                if entry["kind"] in OVERLOAD_KINDS:
                    _compile_through_caller(target, arg_types, timer)
                elif not _compiled_already(target, arg_types):
                    if not getattr(target, "_can_compile", True):
                        raise _NotCompilable("its dispatcher compiles only its explicit signatures")
                    target.compile(arg_types)
                compiled += 1
            except Exception as exc:
                failed_s += timer.seconds - before[0]
                failed_cpu_s += timer.cpu_seconds - before[1]
                timer.restore(before)
                not_compiled.append(_failed(entry, _why(exc)))
        pending = waiting
        if not progress or not pending:
            break
    failed_imports = set(not_imported)
    for entry in pending:
        module = entry["path"].removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        if module in failed_imports:
            not_compiled.append(_failed(entry, "its module does not import in plain Python"))
        else:
            not_compiled.append(_failed(entry, "no live dispatcher (or @overload) of this function"))
    return {
        "wanted": len(wanted),
        "compiled": compiled,
        "not_compiled": not_compiled,
        "failed_compile_s": failed_s,
        "failed_compile_cpu_s": failed_cpu_s,
    }


def _compiled_already(dispatcher: Any, arg_types: tuple[Any, ...]) -> bool:
    """Compiled at import (explicit signatures) or inside a caller: timed there. A UFuncDispatcher keys
    its compiles by Signature, and compiles again when asked."""
    return any(tuple(getattr(key, "args", key)) == arg_types for key in list(dispatcher.overloads))


class _NotCompilable(Exception):
    pass


def _why(exc: Exception) -> str:
    if isinstance(exc, _NotCompilable):
        return str(exc)
    if type(exc).__name__ == "ForceLiteralArg":  # Numba's dispatcher would retry with the values as literals
        return (
            "Numba asks for the literal values of some arguments (literally()), which the types do not hold"
        )
    text = str(exc).strip().splitlines()
    return f"Numba: {type(exc).__name__}: {text[0] if text else ''}"


def _compile_through_caller(found: Overload, arg_types: tuple[Any, ...], timer: Any) -> None:
    """An @overload's typing function typed for these arguments: Numba compiles its implementation inside
    a jitted caller, so compile the smallest one, a function that passes its arguments on (an
    `@overload_method`'s first argument is the object whose method it calls). Timed here as a whole (the
    caller is not the package's: the timer's events leave it out), with the implementation's compile in it;
    the caller's own share is a call's lowering."""
    import numba
    from numba.core import types

    call = [a for a in arg_types if not isinstance(a, types.Omitted)]  # an omitted argument was not passed
    if call and isinstance(call[-1], (types.StarArgTuple, types.StarArgUniTuple)):
        call = [*call[:-1], *call[-1].types]
    names = [f"a{i}" for i in range(len(call))]
    template = found.template
    method = getattr(template, "_attr", None)
    if method is not None:
        body = f"{names[0]}.{method}({', '.join(names[1:])})"
        namespace: dict[str, Any] = {}
    else:
        body = f"target({', '.join(names)})"
        namespace = {"target": template.key}
    exec(f"def caller({', '.join(names)}):\n    return {body}\n", namespace)
    started = timer.begin()
    numba.njit(namespace["caller"]).compile(tuple(call))
    timer.end(started)


def _failed(entry: dict[str, Any], reason: str) -> dict[str, Any]:
    return {
        "path": entry["path"],
        "qualname": entry["qualname"],
        "line": entry["line"],
        "args": entry["args"],
        "reason": reason[:300],
    }


@dataclass
class Overload:
    """An @overload's (or @overload_method's) template, by its typing function."""

    py_func: Any  # the typing function
    template: Any


def _overload_templates(base: str) -> dict[tuple[str, str], list[Overload]]:
    """The live templates of @overload and @overload_method typing functions, by (path, qualname)."""
    found: dict[tuple[str, str], list[Overload]] = {}
    for obj in gc.get_objects():
        try:
            if not isinstance(obj, type) or "_overload_func" not in obj.__dict__:
                continue
            typing_function = obj._overload_func  # a staticmethod in the class's namespace
            code = getattr(typing_function, "__code__", None)
        except Exception:
            continue
        if code is None:
            continue
        path = os.path.relpath(os.path.realpath(code.co_filename), base)
        found.setdefault((path, typing_function.__qualname__), []).append(Overload(typing_function, obj))
    return found


def _by_function(dispatchers: list[Any], base: str) -> dict[tuple[str, str], list[Any]]:
    found: dict[tuple[str, str], list[Any]] = {}
    for dispatcher in dispatchers:
        py_func = dispatcher.py_func
        path = os.path.relpath(os.path.realpath(py_func.__code__.co_filename), base)
        found.setdefault((path, py_func.__qualname__), []).append(dispatcher)
    return found


def _matching(candidates: list[Any], def_line: int, parallel: bool | None) -> Any:
    """The dispatcher of the function whose first line (its decorator's, or the `def`) is the last one at
    or above the `def` line check showed; of twin dispatchers (parallel=True and serial), the one check
    named (`parallel`), else the first."""
    above = [d for d in candidates if d.py_func.__code__.co_firstlineno <= def_line]
    if not above:
        return None
    first = max(d.py_func.__code__.co_firstlineno for d in above)
    same = [d for d in above if d.py_func.__code__.co_firstlineno == first]
    if parallel is not None:
        twin = [
            d for d in same if bool((getattr(d, "targetoptions", None) or {}).get("parallel")) == parallel
        ]
        same = twin or same
    return same[0]


def _resolver(base: str) -> Any:
    """types_codec's resolver: a module-level object by its module and qualname, else by the file it is
    defined in (the analysis may know a module under another name than this process)."""
    import sys

    from pyserver.record import types_codec

    def resolve(module: str, qualname: str, path: str | None) -> Any:
        obj = types_codec.default_resolve(module, qualname, path)
        if obj is None and path is not None:
            wanted = os.path.realpath(os.path.join(base, path))
            for loaded in list(sys.modules.values()):
                filename = getattr(loaded, "__file__", None)
                if filename and os.path.realpath(filename) == wanted:
                    return types_codec.walk_qualname(loaded, qualname)
        return obj

    return resolve
