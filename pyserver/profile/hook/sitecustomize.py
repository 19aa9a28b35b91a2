"""Numba Lens profiling hook, loaded by Python at start-up when `pyserver profile` put this folder on PYTHONPATH.

It first runs the user's own `sitecustomize` (if any, found further down sys.path), then, only when
NUMBA_LENS_PROFILE_DIR names a folder, measures where this interpreter keeps its Python frames (for the
sampler, which reads them from outside) and, once the program imports Numba, times every compile and
copies every new JIT object to that folder. It never imports Numba itself.
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
    globals().update({k: v for k, v in vars(module).items() if not k.startswith("__")})


def _inproc() -> types.ModuleType:
    package_parent = os.environ.get("NUMBA_LENS_PYSERVER_PATH")
    if package_parent and package_parent not in sys.path:
        sys.path.append(package_parent)  # last: never shadows the user's modules
    from pyserver.profile import inproc

    return inproc


class _NumbaWatcher:
    """A one-shot meta-path finder: when `numba` is imported, install the compile listener after it loads."""

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
                _inproc().install_numba_listener(os.environ["NUMBA_LENS_PROFILE_DIR"])
            except Exception as exc:
                print(f"numba-lens: profiling of jitted code is off: {exc!r}", file=sys.stderr)

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


_chain_user_sitecustomize()
if os.environ.get("NUMBA_LENS_PROFILE_DIR"):
    try:
        _inproc().write_layout(os.environ["NUMBA_LENS_PROFILE_DIR"])
    except Exception as exc:
        print(f"numba-lens: Python frames will be unknown in the profile: {exc!r}", file=sys.stderr)
    if "numba" in sys.modules:
        _inproc().install_numba_listener(os.environ["NUMBA_LENS_PROFILE_DIR"])
    else:
        sys.meta_path.insert(0, _NumbaWatcher())
