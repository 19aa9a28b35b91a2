"""Numba Lens recording hook, loaded by Python at start-up when `pyserver record` put this folder on PYTHONPATH.

It first runs the user's own `sitecustomize` (if any, found further down sys.path), then, only when
NUMBA_LENS_RECORD names a signatures file, waits for Numba to be imported and records every compile of a
jitted function defined under NUMBA_LENS_RECORD_ROOT, failed compiles included. It never imports Numba
itself, so processes that do not use Numba pay only for importing two small modules.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
# The folder holding the `pyserver` package (set by the launcher; else this file's own), appended last so
# that it never shadows the user's modules.
_PACKAGE_PARENT = os.environ.get("NUMBA_LENS_PYSERVER_PATH") or os.path.dirname(
    os.path.dirname(os.path.dirname(_HERE))
)
if _PACKAGE_PARENT not in sys.path:
    sys.path.append(_PACKAGE_PARENT)

from pyserver.startup_hooks import chain_user_sitecustomize, when_numba_is_imported  # noqa: E402


def _install_recorder() -> None:
    from pyserver.record.recorder import install

    install(os.environ["NUMBA_LENS_RECORD"], os.environ.get("NUMBA_LENS_RECORD_ROOT", os.getcwd()))


chain_user_sitecustomize(_HERE, globals())
if os.environ.get("NUMBA_LENS_RECORD"):
    when_numba_is_imported(_install_recorder, "recording")
