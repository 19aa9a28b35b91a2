"""A package whose `__init__` imports a wiring module that registers a class of another of its modules with
Numba (`structref.define_proxy`, `@overload_method(ShelfType, ...)`): a module of that package is checked
as Python imports it, one copy of its classes, the one the registrations name. After a recorded run,
checking each module alone gives no error (the method and the proxy class type), and an unsaved edit or a
save of the module with the class keeps the registrations on the class the edited text defines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pyserver.analysis.engine import AnalysisEngine

ROOT = Path(__file__).resolve().parents[2]
ENV = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}

FILES = {
    "shelves/__init__.py": """\
from .shelf import Shelf
from . import _wiring  # noqa: F401
from .build import make_shelf
from ._kind import load
""",
    "shelves/_kind.py": """\
from numba import njit
from numba.core import types
from numba.experimental import structref


@structref.register
class ShelfType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


@njit
def load(shelf):
    return shelf.weight() * shelf.count
""",
    "shelves/shelf.py": """\
from numba.experimental import structref


class Shelf(structref.StructRefProxy):
    pass
""",
    "shelves/_wiring.py": """\
from numba.experimental import structref
from numba.extending import overload_method

from ._kind import ShelfType
from .shelf import Shelf

structref.define_proxy(Shelf, ShelfType, ["unit", "count"])


@overload_method(ShelfType, "weight")
def _shelf_weight(shelf):
    return lambda shelf: shelf.unit * 2.0
""",
    "shelves/build.py": """\
from numba import njit

from .shelf import Shelf


@njit
def make_shelf(unit, count):
    return Shelf(unit, count)
""",
    "use_shelves.py": """\
import shelves

print(shelves.load(shelves.make_shelf(1.5, 4)))
""",
}


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, env=ENV)


def _errors(diagnostics: list[dict[str, object]]) -> list[object]:
    return [d["message"] for d in diagnostics if d["severity"] == "error"]


def _recorded_package(root: Path) -> None:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    plain = _run(root, sys.executable, "use_shelves.py")
    assert plain.returncode == 0 and plain.stdout.strip() == "12.0", plain.stderr  # fine in plain Python
    recorded = _run(root, sys.executable, "-m", "pyserver", "record", "--", sys.executable, "use_shelves.py")
    assert recorded.returncode == 0, recorded.stderr


def test_each_module_of_a_package_with_registrations_elsewhere_checks_clean(tmp_path: Path) -> None:
    _recorded_package(tmp_path)
    for files in (["shelves/_kind.py"], ["shelves/build.py"], ["shelves/_wiring.py", "shelves/build.py"]):
        checked = _run(tmp_path, sys.executable, "-m", "pyserver", "check", *files, "--format", "json")
        report = json.loads(checked.stdout)
        assert _errors(report["diagnostics"]) == [], files
        typed = {f["name"]: f["signatures"] for f in report["functions"] if f["signatures"]}
        if "shelves/_kind.py" in files:
            assert [(s["return_type"], s["ok"]) for s in typed["load"]] == [("float64", True)]
        if "shelves/build.py" in files:
            (signature,) = typed["make_shelf"]
            assert signature["ok"] and signature["return_type"].startswith("numba.ShelfType("), signature


def test_an_edit_and_a_save_of_the_module_with_the_class_keep_its_registrations(tmp_path: Path) -> None:
    _recorded_package(tmp_path)
    engine = AnalysisEngine(tmp_path, timeout_s=120.0)
    engine.start()
    try:
        kind = tmp_path / "shelves" / "_kind.py"
        saved = kind.read_text()
        edited = saved.replace("shelf.weight() * shelf.count", "shelf.weight() * shelf.count + 1.0")
        for source in (saved, edited):
            result = engine.analyze(kind, source)
            assert [d.message for d in result.diagnostics if d.severity == "error"] == []
            (load,) = [f for f in result.functions if f.name == "load"]
            assert [(s.return_type, s.ok) for s in load.signatures] == [("float64", True)]
        kind.write_text(edited)
        result = engine.analyze(kind, edited)
        assert [d.message for d in result.diagnostics if d.severity == "error"] == []
        (load,) = [f for f in result.functions if f.name == "load"]
        assert [(s.return_type, s.ok) for s in load.signatures] == [("float64", True)]
    finally:
        engine.close()


def test_the_package_import_before_the_first_module_runs_only_definitions(tmp_path: Path) -> None:
    # the first file a fresh worker loads: its package's import runs definitions-only too
    (tmp_path / "chatty").mkdir()
    (tmp_path / "chatty" / "__init__.py").write_text("from . import kernels\n")
    (tmp_path / "chatty" / "kernels.py").write_text(
        "from numba import njit\n\n"
        'open("kernels.ran", "w").write("ran")\n\n\n'
        "@njit\ndef twice(x: float):\n    return 2.0 * x\n"
    )
    checked = _run(
        tmp_path, sys.executable, "-m", "pyserver", "check", "chatty/kernels.py", "--format", "json"
    )
    report = json.loads(checked.stdout)
    assert _errors(report["diagnostics"]) == []
    assert not (tmp_path / "kernels.ran").exists()
    (twice,) = [f for f in report["functions"] if f["name"] == "twice"]
    assert [(s["return_type"], s["ok"]) for s in twice["signatures"]] == [("float64", True)]
    (loaded,) = report["files"]
    assert [s["line"] for s in loaded["skipped"]] == [3]  # listed as not run


UNAVAILABLE_DEFAULT = {
    "graphs/__init__.py": "from .build import grow\n",
    "graphs/heap.py": """\
import numpy as np
from numba import njit


@njit
def make_heap(n):
    return np.zeros(n)


EMPTY = make_heap(1)  # a call of a jitted function: never run by the analysis
""",
    "graphs/build.py": """\
from numba import njit

from .heap import EMPTY


@njit
def grow(x, start=EMPTY):
    return x + start[0]
""",
    "use_graphs.py": "import numpy as np\nimport graphs\n\nprint(graphs.grow(1.0, np.ones(2)))\n",
}


def test_a_default_that_definitions_only_loading_leaves_without_a_value_is_no_internal_error(
    tmp_path: Path,
) -> None:
    for name, text in UNAVAILABLE_DEFAULT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    recorded = _run(
        tmp_path, sys.executable, "-m", "pyserver", "record", "--", sys.executable, "use_graphs.py"
    )
    assert recorded.returncode == 0, recorded.stderr
    checked = _run(tmp_path, sys.executable, "-m", "pyserver", "check", "graphs/build.py", "--format", "json")
    report = json.loads(checked.stdout)
    assert _errors(report["diagnostics"]) == []
    (grow,) = [f for f in report["functions"] if f["name"] == "grow"]
    assert [(s["args"], s["return_type"], s["ok"]) for s in grow["signatures"]] == [
        (["float64", "array(float64, 1d, C)"], "float64", True)
    ]
