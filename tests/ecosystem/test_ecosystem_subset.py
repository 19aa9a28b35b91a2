"""The ecosystem check (`make ecosystem`) on three small packages: Numba Lens against what Numba really
compiled for their workloads. Hard goals: no false errors, no wrong types; after record, everything typed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".make" / "ecosystem" / "venv"
# small, quick to install and to compile, and three styles: a kd-tree of @njit kernels behind a
# Python class (numba-kdtree), module-level kernels with cache=True and a filter table (resampy), a
# jitted loop updating a progress bar object (numba-progress)
SUBSET = ("numba-kdtree", "resampy", "numba-progress")


@pytest.fixture(scope="module")
def ecosystem_python() -> Path:
    proc = subprocess.run(
        ["bash", str(ROOT / "ecosystem" / "venv.sh"), str(VENV), sys.executable],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        if "Could not find a version" in proc.stderr or "connection" in proc.stderr.lower():
            pytest.skip(
                f"the ecosystem venv cannot be built (no package index?): {proc.stderr.strip()[-300:]}"
            )
        raise AssertionError(proc.stderr)
    return VENV / "bin" / "python"


@pytest.mark.timeout(600)
def test_subset_has_no_false_errors_and_no_wrong_types(ecosystem_python: Path, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [
            str(ecosystem_python),
            str(ROOT / "ecosystem" / "run.py"),
            "--no-scripts",
            "--packages",
            ",".join(SUBSET),
            "--report",
            str(report),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert report.is_file(), proc.stdout + proc.stderr
    rows = json.loads(report.read_text())["rows"]
    assert sorted(row["name"] for row in rows) == sorted(SUBSET), proc.stdout
    for row in rows:
        assert row["status"] == "ok", f"{row['name']}'s workload failed: {row['status']}"
        assert row["compiled"] > 0, f"{row['name']}: Numba compiled nothing\n{proc.stdout}"
        assert row["false_errors"] == 0, "\n".join(row["differences"])
        assert row["wrong_types"] == 0, "\n".join(row["differences"])
        # After record every compiled function is typed: numba-kdtree's @overload implementations and
        # numba-progress's take a StructRef or a ProgressBar, types `record` cannot store exactly; their
        # recorded compiles' own types are shown.
        assert row["typed_after"] == row["compiled"], "\n".join(row["differences"])
