"""Numba Lens inside a Jupyter kernel (any front end): `%load_ext pyserver.notebook`.

- The kernel becomes a source of signatures: every Numba compile that really happens in it is recorded
  (pyserver.record.recorder) into the workspace's `.numba-lens/signatures.json`, functions defined in
  cells under the notebook's path, with source "kernel" (pyserver.notebook.kernel_source).
- `%%numba_lens_profile` samples the kernel while its cell runs and shows the per-line heat of the
  jitted functions and a flame graph (pyserver.notebook.profile_magic).
"""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    from pyserver.notebook import kernel_source, profile_magic

    kernel_source.register(ipython)
    profile_magic.register(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """Recording stays on until the kernel restarts: Numba has no way to remove an event listener."""
