"""A working gdb in one click: a launch with a gdb that cannot see Numba's JIT code (a stand-in reporting
15.1, since gdb 15 is not on this machine) fails with the offer; `doctor --fix` installs the real
gdb-for-pwndbg wheel for this Python into Numba Lens's gdb folder; the next launch, with nothing edited,
uses that gdb and stops in jitted code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from pyserver import gdb_install
from pyserver.versions import gdb_wheel_available

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "debug"))
from dapclient import DapClient

MIXED = Path(__file__).resolve().parent.parent / "debug" / "programs" / "mixed.py"

pytestmark = pytest.mark.skipif(
    not gdb_wheel_available(), reason="gdb-for-pwndbg has wheels for CPython 3.11-3.13 on Linux only"
)


def stand_in_gdb_15(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    fake = folder / "gdb"
    fake.write_text('#!/bin/sh\necho "GNU gdb (Ubuntu 15.0.50.20240403-0ubuntu1) 15.0.50.20240403-git"\n')
    fake.chmod(0o755)
    return fake


@pytest.fixture
def gdb15_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """PATH finds the stand-in gdb 15 first; Numba Lens's gdb folder is empty and private to the test, and
    this environment's own gdb (where `make test` installed one: a CPU on which the system gdb cannot
    call functions) is set aside while the test runs."""
    stand_in_gdb_15(tmp_path / "bin")
    home = tmp_path / "gdb-home"
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv(gdb_install.HOME_VARIABLE, str(home))
    own = gdb_install.environment_gdb()
    aside = tmp_path / "environment-gdb"
    if own is not None:
        os.replace(own, aside)
    try:
        yield home
    finally:
        if own is not None:
            os.replace(aside, own)


def gdb_processes_under(root: int) -> list[str]:
    try:
        children = psutil.Process(root).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    out = []
    for child in children:
        try:
            out.append(" ".join(child.cmdline()))
        except psutil.Error:
            pass
    return [line for line in out if "gdb" in line]


def test_gdb_15_launch_offers_the_fix_then_doctor_fix_installs_and_the_launch_stops_in_jitted_code(
    gdb15_world: Path, tmp_path: Path
) -> None:
    home = gdb15_world
    # 1. The launch with gdb 15: refused, saying why and what fixes it (what the extension's offer keys on).
    dap = DapClient(str(tmp_path / "dap1.log"))
    try:
        dap.ok("initialize", {"adapterID": "numba", "linesStartAt1": True, "pathFormat": "path"})
        response = dap.request("launch", {"program": str(MIXED), "cwd": str(MIXED.parent)}, timeout=120)
        assert response["success"] is False
        message = str(response["message"])
        assert "cannot see Numba's jitted code" in message and "doctor --fix" in message, message
    finally:
        dap.close()
    assert not home.exists()

    # 2. doctor sees the same, and --fix installs the real wheel into the gdb folder.
    doctor = subprocess.run(
        [sys.executable, "-m", "pyserver", "doctor", "--json"], capture_output=True, text=True, timeout=120
    )
    before = json.loads(doctor.stdout)
    assert before["gdb_version"].startswith("15.")
    assert {c["name"]: c["status"] for c in before["checks"]}["gdb"] == "warning"
    fixed = subprocess.run(
        [sys.executable, "-m", "pyserver", "doctor", "--fix"], capture_output=True, text=True, timeout=900
    )
    assert "installed gdb" in fixed.stdout, fixed.stdout + fixed.stderr
    installed = gdb_install.managed_environment(home) / "bin" / "gdb"
    assert installed.is_file()
    version = gdb_install.gdb_version(str(installed))
    assert version is not None and int(version.split(".")[0]) >= 16
    assert f"gdb {version}" in fixed.stdout and "[ok  ] gdb:" in fixed.stdout
    # From now on the installed gdb is the one used, with the stand-in still first on PATH.
    assert gdb_install.resolve_gdb(None) == str(installed)

    # 3. The same launch, nothing edited: it stops in the jitted function, with its locals.
    dap = DapClient(str(tmp_path / "dap2.log"))
    try:
        response = dap.start(MIXED, breakpoints={12: {}})
        assert response["success"], response
        stop = dap.stopped()
        assert stop["reason"] == "breakpoint"
        frames = dap.top_frames(stop["threadId"])
        assert frames[0]["name"] == "walk(array(float64, 1d, C), int64)" and 11 <= frames[0]["line"] <= 12
        assert {"total", "i", "x"} <= set(dap.scope_variables(frames[0]["id"])["Locals"])
        assert any(str(home) in line for line in gdb_processes_under(dap.proc.pid))
        dap.ok("setBreakpoints", {"source": {"path": str(MIXED)}, "breakpoints": []})
        dap.ok("continue", {"threadId": stop["threadId"]})
        assert dap.event("exited")["exitCode"] == 0
    finally:
        dap.close()

    # 4. gdbPath may name the virtual environment itself (its bin/gdb is used).
    assert gdb_install.resolve_gdb(str(gdb_install.managed_environment(home))) == str(installed)
    assert gdb_install.resolve_gdb("~") == os.path.expanduser("~")  # a folder without bin/gdb: as given
