"""A package's submodule is an attribute of the package once anything imported it, in plain Python and in
definitions-only loading alike: after a package module was loaded as a slice (a statement skipped) and
left sys.modules, a test module that imports one of its submodules by its full name and reads the
package's attribute (`pkg.backend.core.total`) gets no error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECK = [sys.executable, "-m", "pyserver", "check", "--format", "json"]

FILES = {
    "pkg/__init__.py": """\
import os

if os.environ.get("PKG_BACKEND", "") == "other":
    raise ImportError("no other backend")
else:
    from pkg.backend import *  # noqa: F403
""",
    "pkg/backend/__init__.py": """\
from numba import njit

from pkg.backend import _utils
from pkg.backend.core import total

__all__ = ["total", "double"]
print("backend ready")  # skipped by definitions-only loading: the module is a slice


@njit
def double(a):
    return 2.0 * total(a)
""",
    "pkg/backend/_utils.py": "def helper(x):\n    return x\n",
    "pkg/backend/core.py": """\
from numba import njit


@njit
def total(a):
    s = 0.0
    for v in a:
        s += v
    return s
""",
    "pkg/tests/test_core.py": """\
import numpy as np
from numba import njit

import pkg
from pkg.backend._utils import helper

KINDS = [pkg.backend.core.total, helper]


@njit
def twice_total(a):
    return 2.0 * pkg.backend.core.total(a)


def test_total():
    assert twice_total(np.ones(3)) == 6.0
""",
}


def test_a_submodule_stays_an_attribute_of_its_package(tmp_path: Path) -> None:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    plain = subprocess.run(
        [sys.executable, "-c", "import pkg.tests.test_core as t; t.test_total()"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert plain.returncode == 0, plain.stderr  # fine in plain Python
    # the package module first (its slice leaves sys.modules when the next file loads), then the test
    checked = subprocess.run(
        [*CHECK, "pkg/backend/__init__.py", "pkg/tests/test_core.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    report = json.loads(checked.stdout)
    assert [d["message"] for d in report["diagnostics"] if d["severity"] == "error"] == []
    twice = next(f for f in report["functions"] if f["name"] == "twice_total")
    assert [(s["args"], s["return_type"], s["ok"]) for s in twice["signatures"]] == [
        (["array(float64, 1d, C)"], "float64", True)
    ]
