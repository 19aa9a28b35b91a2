"""The kernel as a source of signatures: record the compiles that happen in it, as `record` does.

The notebook's path (the key its cells' functions are recorded under) comes from, in order: the
`%numba_lens_record PATH` magic, VS Code's `__vsc_ipynb_file__`, NUMBA_LENS_NOTEBOOK (set by `record`),
Jupyter Server's JPY_SESSION_NAME, or the only notebook in the kernel's working directory. The workspace
root is NUMBA_LENS_RECORD_ROOT, else the nearest folder above the notebook holding `.numba-lens`, `.git`
or `pyproject.toml`, else the notebook's folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pyserver.record import recorder, store

ROOT_MARKERS = (".numba-lens", ".git", "pyproject.toml", "setup.py")


def notebook_path(user_ns: dict[str, Any], cwd: str | None = None) -> str | None:
    cwd = cwd or os.getcwd()
    for candidate in (
        user_ns.get("__vsc_ipynb_file__"),
        os.environ.get("NUMBA_LENS_NOTEBOOK"),
        os.environ.get("JPY_SESSION_NAME"),
    ):
        if isinstance(candidate, str) and candidate.lower().endswith(".ipynb"):
            path = Path(cwd, candidate)
            if path.is_file():
                return str(path.resolve())
    found = sorted(Path(cwd).glob("*.ipynb"))
    return str(found[0].resolve()) if len(found) == 1 else None


def workspace_root(notebook: str | None, cwd: str | None = None) -> str:
    if os.environ.get("NUMBA_LENS_RECORD_ROOT"):
        return os.environ["NUMBA_LENS_RECORD_ROOT"]
    start = Path(notebook).parent if notebook else Path(cwd or os.getcwd())
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in ROOT_MARKERS):
            return str(folder)
    return str(start)


class KernelSource:
    def __init__(self) -> None:
        self.recorder: recorder.Recorder | None = None

    def start(self, user_ns: dict[str, Any], notebook: str | None = None) -> str:
        """Start recording (once per kernel); what it records into, in words."""
        notebook = notebook or notebook_path(user_ns)
        if self.recorder is None:
            root = workspace_root(notebook)
            signatures = os.environ.get("NUMBA_LENS_RECORD") or str(Path(root, store.DEFAULT_RELATIVE))
            self.recorder = recorder.install(signatures, root, notebook)
        elif notebook:
            self.recorder.notebook = os.path.realpath(notebook)
        if self.recorder.notebook is None:
            return (
                "Numba Lens: recording this kernel's compiles, but the notebook's path is unknown: the "
                "functions of its cells are not recorded. Run `%numba_lens_record path/to/notebook.ipynb`."
            )
        where = self.recorder.notebook_relative()
        if where is None:
            return (
                f"Numba Lens: the notebook is outside the workspace {self.recorder.root}: nothing recorded."
            )
        return f"Numba Lens: recording this kernel's compiles of {where} into {self.recorder.signatures_path}"


SOURCE = KernelSource()


def register(ipython: Any) -> None:
    print(SOURCE.start(ipython.user_ns))

    def numba_lens_record(line: str) -> None:
        """%numba_lens_record [PATH.ipynb]: record this kernel's compiles under that notebook."""
        path = line.strip().strip("'\"") or None
        print(SOURCE.start(ipython.user_ns, str(Path(path).resolve()) if path else None))

    ipython.register_magic_function(numba_lens_record, "line", "numba_lens_record")


__all__ = ["SOURCE", "KernelSource", "notebook_path", "register", "workspace_root"]
