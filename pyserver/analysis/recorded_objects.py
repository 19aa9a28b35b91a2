"""Finds, in the analysis process, the objects recorded types refer to: a jitted function passed as an
argument, a namedtuple or jitclass class (pyserver.record.types_codec stores them by where they are defined).

The recorded process may have run a script as `__main__`: its objects are found by their file, among the
modules the analysis has loaded. A module recorded under its own name is imported by that name.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from pyserver.record import types_codec


class RecordedObjects:
    def __init__(self, root: str, dispatchers_by_function: dict[tuple[str, str], Any]) -> None:
        self.root = os.path.realpath(root)
        # The loader's records, (file, qualname) -> record with a `.dispatcher` (the live view, not a copy).
        self.records = dispatchers_by_function

    def resolve(self, module: str, qualname: str, path: str | None) -> Any:
        full = os.path.realpath(os.path.join(self.root, path)) if path else None
        if full is not None:
            for (recorded_file, name), record in list(self.records.items()):
                if name == qualname and os.path.realpath(recorded_file) == full:
                    return record.dispatcher
            for loaded in list(sys.modules.values()):
                file = getattr(loaded, "__file__", None)
                if isinstance(file, str) and os.path.realpath(file) == full:
                    found = types_codec.walk_qualname(loaded, qualname)
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
