"""What a workspace file is named as a module, and which module names are installed outside the workspace."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def package_root(path: str) -> Path | None:
    """The outermost folder of the package a file is in (the folders above it that hold an `__init__.py`,
    without a gap), or None when the file's folder is no package."""
    folder = Path(path).resolve().parent
    top = None
    while (folder / "__init__.py").is_file() and folder.name.isidentifier():
        top = folder
        if folder.parent == folder:
            break
        folder = folder.parent
    return top


def module_name_for(path: str, root: str) -> tuple[str, str]:
    """(dotted module name, package): a module of a package by its name from the package's outermost
    folder (`pkg.sub.mod`, as `import` names it), else by its path under the root; the file stem outside."""
    resolved = Path(path).resolve()
    top = package_root(path)
    try:
        base = top.parent if top is not None else Path(root).resolve()
        relative = resolved.relative_to(base)
        parts = list(relative.with_suffix("").parts)
    except ValueError:
        parts = [resolved.stem]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1] or [resolved.parent.name]
    if not parts or not all(p.isidentifier() for p in parts):
        parts = [resolved.stem if resolved.stem.isidentifier() else "numba_lens_module"]
    name = ".".join(parts)
    package = name if resolved.name == "__init__.py" else name.rpartition(".")[0]
    return name, package


def installed_module_names(root: str) -> set[str]:
    """Top-level names importable from outside the workspace: the standard library, built-in modules, and
    what the sys.path folders outside the root hold."""
    names = set(sys.builtin_module_names) | set(getattr(sys, "stdlib_module_names", ()))
    real_root = os.path.realpath(root)
    for folder in sys.path:
        real = os.path.realpath(folder or os.getcwd())
        if not os.path.isdir(real) or real == real_root or real.startswith(real_root + os.sep):
            continue
        try:
            entries = os.listdir(real)
        except OSError:
            continue
        for entry in entries:
            if entry.endswith((".dist-info", ".egg-info", ".pth")):
                continue
            names.add(entry.split(".")[0])
    return names
