"""Numba Lens profiling hook, loaded by Python at start-up when `pyserver profile` put this folder on PYTHONPATH.

It first runs the user's own `sitecustomize` (if any, found further down sys.path), then, only when
NUMBA_LENS_PROFILE_DIR names a folder, measures where this interpreter keeps its Python frames (for the
sampler, which reads them from outside) and, once the program imports Numba, times every compile and
copies every new JIT object to that folder. It never imports Numba itself.
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


def _install_listener() -> None:
    from pyserver.profile import inproc

    inproc.install_numba_listener(os.environ["NUMBA_LENS_PROFILE_DIR"])


chain_user_sitecustomize(_HERE, globals())
if os.environ.get("NUMBA_LENS_PROFILE_DIR"):
    try:
        from pyserver.profile import inproc

        inproc.write_layout(os.environ["NUMBA_LENS_PROFILE_DIR"])
    except Exception as exc:
        print(f"numba-lens: Python frames will be unknown in the profile: {exc!r}", file=sys.stderr)
    when_numba_is_imported(_install_listener, "profiling of jitted code")
