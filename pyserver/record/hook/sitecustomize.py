"""Numba Lens recording hook, loaded by Python at start-up when `pyserver record` put this folder on PYTHONPATH.

It first runs the user's own `sitecustomize` (if any, found further down sys.path), then, only when
NUMBA_LENS_RECORD names a signatures file, waits for Numba to be imported and records every compile of a
jitted function defined under NUMBA_LENS_RECORD_ROOT, failed compiles included. It never imports Numba
itself, so processes that do not use Numba pay nothing.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Sequence
from importlib.machinery import ModuleSpec

_HERE = os.path.dirname(os.path.abspath(__file__))


def _chain_user_sitecustomize() -> None:
    search = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", search)
    if spec is None or spec.loader is None or not spec.origin or os.path.dirname(spec.origin) == _HERE:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's hook failing must not stop their program (Python would go on too)
        print(f"numba-lens: the user's sitecustomize failed: {exc!r}", file=sys.stderr)
        return
    # Make the user's names visible as `sitecustomize.<name>`, as if it had been imported directly.
    globals().update({k: v for k, v in vars(module).items() if not k.startswith("__")})


class _NumbaWatcher:
    """A one-shot meta-path finder: when `numba` is imported, install the recorder after it loads."""

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

        def exec_module(module: types.ModuleType) -> None:
            original_exec(module)
            try:
                _install_recorder()
            except Exception as exc:
                print(f"numba-lens: recording is off: {exc!r}", file=sys.stderr)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _install_recorder() -> None:
    package_parent = os.environ.get("NUMBA_LENS_PYSERVER_PATH")
    if package_parent and package_parent not in sys.path:
        sys.path.append(package_parent)  # last: never shadows the user's modules
    from pyserver.record.recorder import install

    install(os.environ["NUMBA_LENS_RECORD"], os.environ.get("NUMBA_LENS_RECORD_ROOT", os.getcwd()))


_chain_user_sitecustomize()
if os.environ.get("NUMBA_LENS_RECORD"):
    if "numba" in sys.modules:
        _install_recorder()
    else:
        sys.meta_path.insert(0, _NumbaWatcher())
