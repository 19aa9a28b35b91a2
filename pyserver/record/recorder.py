"""Records Numba compiles in a running program (loaded by the sitecustomize hook; see cli.py).

Listens to Numba's "numba:compile" events: each compile of a dispatcher whose function is defined in
the workspace is written to the signatures file at once (merged under a file lock, so child processes
and crashes lose nothing), with its exact argument types and whether it compiled.
"""

from __future__ import annotations

import os
from typing import Any

from pyserver.record import store, types_codec

_EXCLUDED_PARTS = {"site-packages", "dist-packages", ".venv", "venv", "node_modules", ".tox"}


class _Recorder:
    def __init__(self, signatures_path: str, root: str) -> None:
        self.signatures_path = signatures_path
        self.root = os.path.realpath(root)
        self.seen: set[tuple[str, str, bool]] = set()

    def function_path(self, py_func: Any) -> str | None:
        code = getattr(py_func, "__code__", None)
        if code is None or code.co_filename.startswith("<"):
            return None  # compiled from a string ("<string>"): no file of the workspace
        real = os.path.realpath(code.co_filename)
        if not real.startswith(self.root + os.sep):
            return None
        relative = os.path.relpath(real, self.root)
        if set(relative.split(os.sep)) & _EXCLUDED_PARTS:
            return None
        return relative

    def on_compile_end(self, dispatcher: Any, args: tuple[Any, ...], failed: bool) -> None:
        # Lifted loops and with-blocks compile through their own dispatchers: not a user signature.
        if type(dispatcher).__name__ in ("LiftedLoop", "LiftedWith", "ObjModeLiftedWith"):
            return
        py_func = getattr(dispatcher, "py_func", None)
        relative = self.function_path(py_func)
        if relative is None or py_func is None:
            return
        key = store.function_key(relative, py_func.__qualname__)
        readable = [str(a) for a in args]
        dedupe = (key, repr(readable), failed)
        if dedupe in self.seen:
            return
        self.seen.add(dedupe)
        encoded = types_codec.encode_all(tuple(args))
        with store.locked(self.signatures_path) as data:
            if encoded is None:
                bad = [str(a) for a in args if types_codec.encode(a) is None]
                store.add_note(
                    data, f"{key}: skipped ({', '.join(readable)}): cannot store {', '.join(bad)} exactly"
                )
            else:
                store.merge(data, key, store.Entry(readable, encoded, ok=not failed))


def install(signatures_path: str, root: str) -> None:
    from numba.core import event

    recorder = _Recorder(os.path.abspath(signatures_path), root)

    class Listener(event.Listener):  # type: ignore[misc]
        def on_start(self, ev: Any) -> None:
            pass

        def on_end(self, ev: Any) -> None:
            data = ev.data or {}
            try:
                dispatcher = data.get("dispatcher")
                args = tuple(data.get("args") or ())
                # Event.is_failed is inverted in Numba 0.68; a successful compile has added its overload
                # by the time the event ends.
                failed = args not in getattr(dispatcher, "overloads", {})
                recorder.on_compile_end(dispatcher, args, failed)
            except Exception as exc:  # recording must never break the user's program
                import sys

                print(f"numba-lens: could not record a signature: {exc!r}", file=sys.stderr)

    event.register("numba:compile", Listener())
