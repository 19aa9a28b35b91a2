"""RecordedObjects finds a recorded object by the real path of the file it was defined in, among the
modules the analysis loaded, however the module's file was spelled when it was imported."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from pyserver.analysis.worker.signatures.recorded_objects import RecordedObjects


def load(name: str, file: Path) -> None:
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def test_objects_are_found_by_their_files_real_path_among_loaded_modules(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "points.py").write_text("class Point:\n    pass\n")
    (real / "lines.py").write_text("class Line:\n    pass\n")
    link = tmp_path / "link"
    os.symlink(real, link)
    names = ["recorded_objects_points", "recorded_objects_lines"]
    try:
        load(names[0], link / "points.py")  # imported through the link: __file__ is not the real path
        load(names[1], real / "lines.py")
        objects = RecordedObjects(str(real), {})
        for _ in range(2):  # the second round asks the file names' real paths again
            point = objects.resolve("__main__", "Point", "points.py")
            assert point is sys.modules[names[0]].Point
            assert objects.resolve("__main__", "Line", "lines.py") is sys.modules[names[1]].Line
            # Each name is looked for in its own file only.
            assert objects.resolve("__main__", "Line", "points.py") is None
            assert objects.resolve("__main__", "Point", "lines.py") is None
        # Seen through the link, the workspace is the same.
        assert RecordedObjects(str(link), {}).resolve("__main__", "Point", "points.py") is point
    finally:
        for name in names:
            sys.modules.pop(name, None)
