"""`doctor` runs real checks against the real gdb and packages of this machine."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from pyserver import doctor


def run_doctor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pyserver", "doctor", *args], capture_output=True, text=True, timeout=120
    )


def test_json_report_matches_installed_versions() -> None:
    out = run_doctor("--json")
    report = json.loads(out.stdout)
    import numba
    import numpy

    assert report["packages"]["numba"] == numba.__version__
    assert report["packages"]["numpy"] == numpy.__version__
    assert report["python"] == sys.version.split()[0]
    names = {c["name"]: c for c in report["checks"]}
    assert names["gdb"]["status"] in {"ok", "warning"}
    assert report["gdb_version"] and report["gdb_version"][0].isdigit()
    # This machine lets gdb attach to our own children (the launch tests depend on it too).
    assert names["ptrace"]["status"] == "ok"
    assert out.returncode == (0 if report["ok"] else 1)


def test_missing_gdb_says_what_to_do() -> None:
    out = run_doctor("--gdb", "/nonexistent/gdb")
    assert out.returncode == 1
    assert "gdb not found" in out.stdout
    assert "apt-get install gdb" in out.stdout


def fake_gdb(tmp_path: Path, version_line: str) -> str:
    """A script that answers `--version` like the gdb of that version (for the 15.x warning)."""
    path = tmp_path / "gdb"
    path.write_text(f"#!/bin/sh\necho '{version_line}'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_gdb_15_is_warned_about(tmp_path: Path) -> None:
    gdb = fake_gdb(tmp_path, "GNU gdb (GDB) 15.1")
    assert doctor.gdb_version(gdb) == "15.1"
    check = doctor.gdb_version_check("15.1", gdb)
    assert check.status == "warning"
    assert "cannot see" in check.detail and "gdb 16" in check.detail


def test_gdb_version_parsing() -> None:
    assert doctor.parse_version("13.1") == (13, 1)
    assert doctor.gdb_version_check("16.2", "gdb").status == "ok"
    assert doctor.gdb_version_check(None, "gdb").status == "error"
    assert os.path.exists("/usr/bin/gdb")


def test_fix_with_a_gdb_that_sees_jitted_code_installs_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_LENS_GDB_HOME": str(tmp_path / "home")}
    out = subprocess.run(
        [sys.executable, "-m", "pyserver", "doctor", "--fix"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert "can see jitted code; nothing to install" in out.stdout, out.stdout
    assert not (tmp_path / "home").exists()


def test_gdb_15_and_missing_gdb_name_the_fix() -> None:
    for check in (doctor.gdb_version_check("15.1", "gdb"), doctor.gdb_version_check(None, "gdb")):
        assert "python -m pyserver doctor --fix" in check.fix
