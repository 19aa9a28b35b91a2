"""A package whose `__init__` fills a registry by a call, which the analysis never runs (it runs no
statement for its effects), and whose library `@jit` wrapper reads that registry at import: the load fails
where a plain import does not. That is no error in the code: the failing modules get one information
diagnostic naming the registration calls (as related locations), their functions are still checked, and
the statements still do not run. A module that fails for a reason of its own keeps its error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

INIT = """\
import os

from .registry import registry

registry.register("fast", {"fastmath": True})
open(os.path.join(os.path.dirname(__file__), "init.ran"), "a").write("ran")
"""

REGISTRY = """\
class Registry:
    def __init__(self):
        self._options = {}

    def register(self, name, options):
        self._options[name] = options

    def options(self, name):
        if name not in self._options:
            raise KeyError(f"backend {name!r} not in {sorted(self._options)}")
        return self._options[name]


registry = Registry()
"""

JITTING = """\
import numba

from .registry import registry


def jit(function):
    return numba.njit(**registry.options("fast"))(function)
"""

KERNELS = """\
from numba import njit

from .jitting import jit


@jit
def doubled(x: float):
    return x * 2.0


@njit
def tripled(x: float):
    return x * 3.0
"""

BROKEN = """\
import logging

from numba import njit

log = logging.getLogger(__name__)
log.setLevel(logging.INFO)

import not_installed_anywhere_xyz as helper

OFFSET = helper.OFFSET


@njit
def shifted(x: float):
    return x + OFFSET
"""


def _check(root: Path, *paths: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", *map(str, paths)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout, done.stderr
    return json.loads(done.stdout)


def test_a_load_that_needs_a_registration_call_is_information_naming_the_call(tmp_path: Path) -> None:
    pkg = tmp_path / "regpkg"
    pkg.mkdir()
    for name, text in {
        "__init__": INIT,
        "registry": REGISTRY,
        "jitting": JITTING,
        "kernels": KERNELS,
        "broken": BROKEN,
    }.items():
        (pkg / f"{name}.py").write_text(text)
    report = _check(tmp_path, pkg / "kernels.py", pkg / "broken.py")
    by_file: dict[str, list[dict]] = {}
    for diagnostic in report["diagnostics"]:
        by_file.setdefault(Path(diagnostic["path"]).name, []).append(diagnostic)
    [needs] = by_file["kernels.py"]
    assert needs["severity"] == "information" and needs["code"] == "load-needs-effects", needs
    assert "KeyError" in needs["message"] and "`registry.register(...)` (__init__.py:5)" in needs["message"]
    # The registration call is the one related location; the file write beside it is not.
    assert [(Path(r["path"]).name, r["range"]["start"]["line"]) for r in needs["relatedInformation"]] == [
        ("__init__.py", 4)
    ]
    typed = {f["name"]: [s["return_type"] for s in f["signatures"]] for f in report["functions"]}
    assert typed["tripled"] == ["float64"]  # the module's functions are still checked
    assert not (pkg / "init.ran").exists()  # and the statements still never ran
    # A module failing for its own reason (a missing module) keeps its error, whatever else was skipped.
    [broken] = by_file["broken.py"]
    assert broken["severity"] == "error" and broken["code"] == "analysis-failed", broken
    assert "not_installed_anywhere_xyz" in broken["message"]
