"""@overload / @overload_method implementations: typed from the calls that resolved to them.

A typing function (`ol_f`) runs at typing time and returns the implementation Numba compiles for the
call's types (`ol_f.<locals>.impl`). Each argument types that reached the typing function (a recorded
run's compiles, or the jitted callers this analysis typed) gives the implementation Numba returns for
them, typed with the types Numba compiles it for; the typing function shows those signatures, and the
implementation, a function of the file too, is listed with them under its own name.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from pyserver.analysis.model import FunctionInfo, SignatureResult
from pyserver.analysis.worker.discover.discovery import TYPED_FROM_JITTED_CALLS
from pyserver.analysis.worker.infer import recorded_types


def _implementation(typing_function: Any, args: tuple[Any, ...]) -> Any:
    """The implementation the typing function returns for these argument types (None: it declines)."""
    try:
        returned = typing_function(*args)
    except Exception:
        return None
    if isinstance(returned, tuple) and len(returned) == 2:
        returned = returned[1]  # (signature, implementation)
    return returned if callable(returned) and hasattr(returned, "__code__") else None


def type_overloads(analyzer: Any, run: Any) -> None:
    """Type each @overload / @overload_method function of the file once per argument types that reached it:
    recorded runs (the implementation's compiles) and calls typed by this analysis. The implementation's
    types become the overload function's signatures, so its hover and lens show them, and the
    implementation's own. A @register_jitable function is its own implementation."""
    from pyserver import numba_api
    from pyserver.analysis.worker.signatures.signature_sources import Candidate
    from pyserver.record import store, types_codec

    module = run.load.module if run.load is not None else None
    if module is None:
        return
    relative = store.function_key(os.path.relpath(run.path, analyzer.root), "")
    listing = _ImplementationListing(run)
    for name, function in run.by_name.items():
        if function.kind not in TYPED_FROM_JITTED_CALLS or function.nested:
            continue
        jitable = function.kind == "register-jitable"
        typing_function = types_codec.walk_qualname(module, name)
        code = getattr(typing_function, "__code__", None)
        if code is None:
            continue
        found: list[tuple[tuple[Any, ...], str]] = []
        prefix = f"{relative}{name}" if jitable else f"{relative}{name}.<locals>."
        for data in run.stores:
            for key in data.get("functions", {}):
                if key != prefix if jitable else not key.startswith(prefix):
                    continue
                for entry in store.entries(data, key):
                    try:
                        args = tuple(
                            types_codec.decode(e, analyzer.recorded_objects.resolve)
                            for e in entry.types or ()
                        )
                    except (ValueError, KeyError, TypeError):
                        continue
                    # the implementation's compiled types; the typing function takes the call's
                    found.append((numba_api.overload_call_types(args), "recorded"))
        for args in numba_api.overload_calls(code.co_filename, name):
            found.append((args, "caller"))
        # Numba's resolution tries an overload with a call's types as they are and, where its
        # implementation does not type, again with their literal values (`numba.literally`, a list's
        # initial value): the literal forms go first here, and a failure of the plain form of one that
        # typed is a candidate Numba passed over, not an error.
        found.sort(key=lambda pair: pair[0] == tuple(numba_api.unliteral(a) for a in pair[0]))
        typed_plain: set[tuple[Any, ...]] = set()
        seen: set[tuple[Any, ...]] = set()
        for args, source in found:
            if args in seen:
                continue
            seen.add(args)
            implementation = typing_function if jitable else _implementation(typing_function, args)
            if implementation is None:
                continue
            dispatcher = numba_api.nopython_dispatcher(implementation)
            # Numba compiles the implementation for the call's types folded through its own parameters
            # (a default as Omitted, `*args` as one tuple), never for the call's types as they are.
            signature = numba_api.implementation_signature(dispatcher, args)
            if signature is None:
                continue  # the call does not fit the implementation: no signature, never an error of ours
            plain = tuple(numba_api.unliteral(a) for a in args)
            candidate = Candidate(signature, None, source)
            if plain == args and plain in typed_plain:
                candidate.uncertain = "Its call's types without their literal values, which Numba passed over"
                run.candidates.setdefault(name, []).append(candidate)
            run.records[name] = numba_api.Recorded(implementation, dispatcher, "jit", [], {})
            shown = run.infos[name].signatures
            before = len(shown)
            try:
                analyzer.run_candidate(run, name, candidate)
            finally:
                run.records.pop(name, None)
            if len(shown) > before and shown[-1].ok:
                typed_plain.add(plain)
                if not jitable and not candidate.uncertain:
                    listing.add(name, implementation, shown[-1])


class _ImplementationListing:
    """The implementations of the file's typing functions, listed under their own names with the
    signatures Numba compiles them for."""

    def __init__(self, run: Any) -> None:
        self.run = run
        self._places: dict[str, list[recorded_types.Place]] | None = None

    def add(self, typing_name: str, implementation: Any, signature: SignatureResult) -> None:
        """List the implementation the typing function returned with this (typed) signature: only a
        function defined inside the typing function, in this file, at a place the text says exactly."""
        code = implementation.__code__
        qualname = str(getattr(implementation, "__qualname__", ""))
        if not qualname.startswith(f"{typing_name}.<locals>."):
            return
        if os.path.realpath(code.co_filename) != os.path.realpath(self.run.path):
            return
        # Several same-named implementations (one per kind of argument) are told apart by their line.
        matching = [p for p in self._where().get(qualname, []) if p.first_line == code.co_firstlineno]
        if len(matching) != 1:
            return  # two functions of that name start on the line: which one compiled, the text cannot say
        place = matching[0]
        info = self._info(qualname, place)
        if any(s.args == signature.args for s in info.signatures):
            return
        # The typing function's signature places the parameters on its own `def` line: here, on the
        # implementation's (the body's variables are on the implementation's lines already).
        variables = [
            dataclasses.replace(v, line=place.def_line) if v.is_arg else v for v in signature.variables
        ]
        info.signatures.append(dataclasses.replace(signature, variables=variables))

    def _where(self) -> dict[str, list[recorded_types.Place]]:
        if self._places is None:
            index = self.run.index
            self._places = recorded_types.places(index.tree, index.source.splitlines(keepends=True))
        return self._places

    def _info(self, qualname: str, place: recorded_types.Place) -> FunctionInfo:
        node = place.node
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        if node.args.vararg is not None:
            params.append(node.args.vararg.arg)
        params += [a.arg for a in node.args.kwonlyargs]
        # Numba compiles an implementation with a nopython dispatcher
        return recorded_types.info_for(self.run.result, qualname, place, None, params)
