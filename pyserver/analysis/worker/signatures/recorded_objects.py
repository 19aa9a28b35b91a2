"""Finds, in the analysis process, the objects recorded types refer to: a jitted function passed as an
argument, a namedtuple or jitclass class (pyserver.record.types_codec stores them by where they are defined).

The recorded process may have run a script as `__main__`: its objects are found by their file, among the
modules the analysis has loaded. A module recorded under its own name is imported by that name.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

from pyserver.analysis.worker.load.loader import module_name_for
from pyserver.record import types_codec


class RecordedObjects:
    def __init__(
        self,
        root: str,
        dispatchers_by_function: dict[tuple[str, str], Any],
        may_import: Callable[[], bool] | None = None,
    ) -> None:
        self.root = os.path.realpath(root)
        # The loader's records, (file, qualname) -> record with a `.dispatcher` (the live view, not a copy).
        self.records = dispatchers_by_function
        # Whether a workspace file nothing imported yet may be imported to find an object in it (a script's
        # function passed to a library): only when imports run definitions alone, never a script's work.
        self.may_import = may_import or (lambda: False)
        self._imported: dict[str, float] = {}  # path -> its mtime when imported (or tried)
        # A file name's real path, asked once per name: a lookup compares it for every loaded module (a
        # package's check made tens of thousands of such comparisons, each a realpath's system calls).
        self._real_paths: dict[str, str] = {}

    def resolve(self, module: str, qualname: str, path: str | None) -> Any:
        full = os.path.realpath(os.path.join(self.root, path)) if path else None
        found = self._in_loaded(qualname, full) if full is not None else None
        if found is None and full is not None and self._import_file(full):
            found = self._in_loaded(qualname, full)
        if found is not None:
            return found
        if module == "__main__":
            return None  # the recorded script: only found by its file, above
        try:
            named = sys.modules.get(module) or importlib.import_module(module)
        except Exception:
            return None
        if full is not None and os.path.realpath(getattr(named, "__file__", "") or "") != full:
            return None  # another module of that name: not the one recorded
        return types_codec.walk_qualname(named, qualname)

    def _import_file(self, full: str) -> bool:
        """Import a workspace file by its module name (definitions only, as the analysis imports modules)."""
        try:
            stamp = os.path.getmtime(full)
        except OSError:
            return False
        if self._imported.get(full) == stamp or not self.may_import():
            return False
        self._imported[full] = stamp
        name, _package = module_name_for(full, self.root)
        if name in sys.modules:
            return False
        try:
            importlib.import_module(name)
        except (Exception, SystemExit):  # the file's own failure: the object stays not found
            return False
        return True

    def _in_loaded(self, qualname: str, full: str) -> Any:
        if full is not None:
            for (recorded_file, name), record in list(self.records.items()):
                if name == qualname and self._real_path(recorded_file) == full:
                    return record.dispatcher
            for loaded in list(sys.modules.values()):
                file = getattr(loaded, "__file__", None)
                if isinstance(file, str) and self._real_path(file) == full:
                    found = types_codec.walk_qualname(loaded, qualname)
                    if found is not None:
                        return found
        return None

    def _real_path(self, file: str) -> str:
        real = self._real_paths.get(file)
        if real is None:
            real = self._real_paths[file] = os.path.realpath(file)
        return real
