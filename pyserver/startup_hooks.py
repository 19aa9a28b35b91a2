"""What the start-up hooks of `record` and `profile` share (their `sitecustomize.py` files import it).

Each hook folder is put first on PYTHONPATH of the program, so Python runs its `sitecustomize` at
start-up. A hook must (1) still run the user's own `sitecustomize`, found further down sys.path, and
(2) never import Numba itself: it acts once the program imports Numba. Processes that never import
Numba pay for this small module only.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from typing import Any


def chain_user_sitecustomize(hook_dir: str, into: dict[str, Any]) -> None:
    """Run the user's own `sitecustomize` (the next one on sys.path after `hook_dir`), and make its names
    visible in `into` (the hook module's globals), as if it had been imported directly."""
    search = [p for p in sys.path if os.path.abspath(p or os.curdir) != hook_dir]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", search)
    if spec is None or spec.loader is None or not spec.origin or os.path.dirname(spec.origin) == hook_dir:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's hook failing must not stop their program (Python would go on too)
        print(f"numba-lens: the user's sitecustomize failed: {exc!r}", file=sys.stderr)
        return
    into.update({k: v for k, v in vars(module).items() if not k.startswith("__")})


def when_numba_is_imported(install: Callable[[], None], what_is_off: str) -> None:
    """Call `install` once Numba is loaded: now if it already is, else right after the program imports it.
    A failing `install` prints "numba-lens: <what_is_off> is off" and never stops the program."""

    def guarded() -> None:
        try:
            install()
        except Exception as exc:
            print(f"numba-lens: {what_is_off} is off: {exc!r}", file=sys.stderr)

    if "numba" in sys.modules:
        guarded()
    else:
        sys.meta_path.insert(0, _NumbaWatcher(guarded))


class _NumbaWatcher:
    """A one-shot meta-path finder: when `numba` is imported, run a callback after it loads."""

    def __init__(self, after_load: Callable[[], None]) -> None:
        self.after_load = after_load

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: types.ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != "numba":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("numba")
        if spec is None or spec.loader is None:
            return None
        loader = spec.loader
        original_exec = loader.exec_module
        after_load = self.after_load

        def exec_module(module: types.ModuleType) -> None:
            original_exec(module)
            after_load()

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec
