"""A top-level call into Numba's own API (`structref.define_proxy`) defines Numba's typing of the module's
names, so definitions-only loading runs it; a call of a freshly jitted function beside it still never runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SOURCE = """
from numba import njit
from numba.core import types
from numba.experimental import structref


@structref.register
class PointType(types.StructRef):
    pass


class Point(structref.StructRefProxy):
    pass


structref.define_proxy(Point, PointType, ["x", "y"])
njit(lambda: open("RAN.txt", "a").write("ran"))()


@njit
def make(x):
    return Point(x, x + 1.0)


def main():
    make(2.0)
"""


def test_define_proxy_runs_and_a_jitted_call_does_not(tmp_path: Path) -> None:
    (tmp_path / "points.py").write_text(SOURCE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "points.py", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(done.stdout)
    errors = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert errors == [], errors
    make = next(f for f in report["functions"] if f["name"] == "make")
    assert [s["args"] for s in make["signatures"]] == [["float64"]]
    assert not (tmp_path / "RAN.txt").exists()
