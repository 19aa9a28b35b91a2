"""One copy of each module of a package, as in plain Python.

Python imports a package before its submodule, and a package's `__init__` often imports the submodule
itself: that import is the module. Its classes are the ones the package's other modules refer to, and
register with Numba (`structref.define_proxy(CSR, CSRType, ...)`, `@overload_method(CSRType, ...)` in
a wiring module): a second copy of the module, run apart for the analysis, would define other classes,
registered nowhere, and its jitted functions would fail to type where plain Python runs fine. So the
Loader checks the module its package imported when that import ran the text being analysed (the
workspace loader imports the analysed file from the editor's text), and a copy that ran another text and
whose classes the package's other modules refer to leaves with its whole package, which imports afresh.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass

from pyserver.analysis.worker.load import toplevel_slice


@dataclass(frozen=True)
class Ran:
    """What a workspace import of a module ran."""

    path: str
    text: str
    definitions_only: bool
    # the definitions-only slice that ran (its skipped statements)
    sliced: toplevel_slice.TopLevelSlice | None


def import_parents(package: str) -> None:
    """Import the packages above a module first, as `import pkg.core` does: their __init__ may import
    the module itself (from its file) and must find it complete, not half-run. A package that fails to
    import is left to the module's own imports to report."""
    parts = package.split(".")
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        if prefix in sys.modules:
            continue
        try:
            importlib.import_module(prefix)
        except KeyboardInterrupt:
            raise
        except BaseException:
            return


def ran(module: types.ModuleType | None) -> Ran | None:
    """What the workspace import of `module` ran; None for a module that import did not make."""
    loader = getattr(getattr(module, "__spec__", None), "loader", None)
    found = getattr(loader, "ran", None)
    return found if isinstance(found, Ran) else None


def imported_copy(name: str, real_path: str, source: str, definitions_only: bool) -> types.ModuleType | None:
    """The module `name` when a workspace import ran it from `source` of the file at `real_path`, loaded as
    this analysis loads (definitions-only or whole); else None."""
    module = sys.modules.get(name)
    what = ran(module)
    if what is None or not same_text(what.text, source) or what.definitions_only != definitions_only:
        return None
    return module if what.path == real_path else None


def ran_other_text(module: types.ModuleType, source: str) -> bool:
    what = ran(module)
    return what is None or not same_text(what.text, source)


def same_text(ran_text: str, source: str) -> bool:
    """Whether a module ran `source`: an import reads a file with universal newlines, and the editor's
    text or a file read as it is keeps its CRLF line ends."""
    if ran_text == source:
        return True
    if "\r" not in source and "\r" not in ran_text:
        return False
    return _universal_newlines(ran_text) == _universal_newlines(source)


def _universal_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def classes_referred_to(module: types.ModuleType, is_workspace_file: Callable[[str], bool]) -> bool:
    """Whether another workspace module refers to a class `module` defines, or to the module (holding
    it: `from . import _struct`). A module that defines no class is left alone: its functions, run again,
    are the analysis's own."""
    name = module.__name__
    defined = {
        id(value)
        for value in list(vars(module).values())
        if isinstance(value, type) and getattr(value, "__module__", None) == name
    }
    if not defined:
        return False
    defined.add(id(module))
    for other in list(sys.modules.values()):
        file = getattr(other, "__file__", None)
        if other is module or not isinstance(file, str) or not is_workspace_file(file):
            continue
        if any(id(value) in defined for value in list(vars(other).values())):
            return True
    return False


def package_modules(name: str, is_workspace_file: Callable[[str], bool]) -> list[str]:
    """The workspace modules of the top-level package of `name` now in sys.modules."""
    top = name.partition(".")[0]
    found = []
    for other in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
        file = getattr(sys.modules.get(other), "__file__", None)
        if isinstance(file, str) and is_workspace_file(file):
            found.append(other)
    return found
