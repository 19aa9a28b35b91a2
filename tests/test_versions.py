"""The one version policy (pyserver/versions.py): every part of Numba Lens gives the same answer, and
pyproject.toml and docs/installing.md say what the table says."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pyserver import doctor, versions
from pyserver.versions import NUMBA_REQUIREMENT, numba_verdict

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("version", ["0.59.1", "0.60.0", "0.61.2", "0.63.1", "0.65.1", "0.67.0", "0.68.1"])
def test_every_release_in_the_range_is_accepted_by_the_server_check_and_doctor(version: str) -> None:
    verdict = numba_verdict(version)
    assert verdict.status == "ok" and verdict.usable
    assert doctor.numba_check(version).status == "ok"


@pytest.mark.parametrize("version", ["0.57.1", "0.58.1", "garbage"])
def test_an_old_numba_gets_one_message_with_the_command_that_fixes_it(version: str) -> None:
    verdict = numba_verdict(version, "/opt/py/bin/python")
    assert verdict.status == "old" and not verdict.usable
    assert NUMBA_REQUIREMENT in verdict.message and "pip install -U" in verdict.message
    assert verdict.message.endswith(verdict.fix) and "/opt/py/bin/python" in verdict.fix
    check = doctor.numba_check(version)
    assert check.status == "error" and NUMBA_REQUIREMENT in check.fix


def test_missing_and_newer() -> None:
    missing = numba_verdict(None, "py", reason="No module named 'numba'")
    assert (
        missing.status == "missing" and "No module named" in missing.message and "pip install" in missing.fix
    )
    newer = numba_verdict("0.69.0")
    assert newer.usable and newer.status == "newer" and "tested range" in newer.message
    assert doctor.numba_check("0.69.0").status == "warning"


def test_pyproject_ranges_agree_with_the_table() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert f'"{NUMBA_REQUIREMENT}"' in text
    low, high = versions.PYTHON_MIN, versions.PYTHON_MAX
    assert f'requires-python = ">={low[0]}.{low[1]},<{high[0]}.{high[1]}"' in text
    for tested in versions.TESTED:
        assert versions.python_supported(tuple(int(p) for p in tested.python.split(".")))
        assert numba_verdict(tested.numba).status == "ok"


def test_docs_show_the_tested_table() -> None:
    text = (ROOT / "docs" / "installing.md").read_text()
    assert versions.tested_table_markdown() in text
    assert NUMBA_REQUIREMENT in text


def test_gdb_policy() -> None:
    assert (
        versions.gdb_can_see_jit("13.1")
        and versions.gdb_can_see_jit("16.3")
        and versions.gdb_can_see_jit("18.1")
    )
    assert not versions.gdb_can_see_jit("15.1") and not versions.gdb_can_see_jit(None)
    assert versions.version_tuple("0.61.0rc1") == (0, 61, 0)
    assert re.fullmatch(r"gdb-for-pwndbg>=16\.3,<\d+", versions.GDB_WHEEL_REQUIREMENT)
    assert versions.gdb_wheel_available((3, 11)) == sys.platform.startswith("linux")
    assert not versions.gdb_wheel_available((3, 10))


def test_record_notes_a_numba_outside_the_tested_range(tmp_path: Path) -> None:
    """`record` runs inside the user's program: the policy's word goes into the signatures file's notes."""
    target = tmp_path / "signatures.json"
    code = (
        "import numba, sys; numba.__version__ = '0.69.0'\n"
        "from pyserver.record.recorder import install; install(sys.argv[1], sys.argv[2])\n"
    )
    subprocess.run(
        [sys.executable, "-c", code, str(target), str(tmp_path)], check=True, cwd=ROOT, timeout=120
    )
    notes = json.loads(target.read_text())["notes"]
    assert any("newer than the tested range" in note and NUMBA_REQUIREMENT in note for note in notes), notes


CPUINFO_AMX = "processor\t: 0\nflags\t\t: fpu sse2 avx512f amx_bf16 amx_tile amx_int8\n\n"
CPUINFO_PLAIN = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f\n\n"


def test_a_cpu_with_amx_is_told_by_its_flags() -> None:
    assert versions.cpu_has_amx(CPUINFO_AMX)
    assert not versions.cpu_has_amx(CPUINFO_PLAIN)
    assert not versions.cpu_has_amx("model name\t: amx_tile in a name\n")  # only the flags line counts


def test_gdb_older_than_16_calls_no_function_on_a_cpu_with_amx() -> None:
    assert not versions.gdb_calls_functions("13.1", amx=True)
    assert not versions.gdb_calls_functions("14.2", amx=True)
    assert versions.gdb_calls_functions("16.3", amx=True) and versions.gdb_calls_functions("18.1", amx=True)
    assert versions.gdb_calls_functions("13.1", amx=False)


def test_the_gdb_the_debugger_would_use_here_can_call_functions_in_the_program(tmp_path: Path) -> None:
    """What resolve_gdb picks on this machine calls a function in a program (a CPU with AMX needs gdb 16+:
    `make test` installs one from PyPI there)."""
    from pyserver import gdb_install

    gdb = gdb_install.resolve_gdb(None, home=tmp_path / "none")
    if shutil.which(gdb) is None:
        pytest.skip("no gdb here")
    version = gdb_install.gdb_version(gdb)
    if not versions.gdb_usable(version) and not versions.gdb_wheel_available():
        # Nothing better exists for this Python here: the launch says on the debug console what is missing.
        pytest.skip(f"gdb {version} cannot call functions on this CPU and PyPI has no gdb for this Python")
    assert versions.gdb_usable(version), gdb
    stops_itself = "import os, signal; os.kill(os.getpid(), signal.SIGSTOP)"
    commands = ["-ex", "run", "-ex", "print (int)getpid()", "-ex", "kill"]
    done = subprocess.run(
        [gdb, "-nx", "-batch", *commands, "--args", sys.executable, "-c", stops_itself],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Couldn't write extended state" not in done.stdout + done.stderr
    assert re.search(r"\$1 = \d+", done.stdout), done.stdout + done.stderr


def test_the_way_to_a_gdb_that_calls_functions_fits_this_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(versions, "gdb_wheel_available", lambda *_: True)
    assert "doctor --fix" in versions.gdb_that_calls_functions_hint()
    # No PyPI gdb for this Python (3.10): doctor --fix would fail, so the hint names what works.
    monkeypatch.setattr(versions, "gdb_wheel_available", lambda *_: False)
    hint = versions.gdb_that_calls_functions_hint()
    assert "doctor --fix" not in hint and "gdb 16 or newer" in hint and "gdbPath" in hint
