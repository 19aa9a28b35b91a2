"""The one version policy: which Numba, Python and gdb Numba Lens supports, and what was tested.

The language server's gate, `check`, `doctor`, `record` and the debugger all ask this module, so they
give the same answer; pyproject.toml's ranges and docs/installing.md's table say the same thing
(tests/test_versions.py checks that pyproject agrees). This module imports nothing heavy: the server
imports it without importing Numba.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass

# Numba: [min, max). Older releases lack what the analysis needs; newer ones are not tested yet.
NUMBA_MIN = (0, 59)
NUMBA_MAX = (0, 69)
NUMBA_REQUIREMENT = "numba>=0.59,<0.69"
# Python: [min, max), as pyproject's requires-python.
PYTHON_MIN = (3, 10)
PYTHON_MAX = (3, 14)
# gdb: 15.x cannot see Numba's jitted code (fixed in gdb 16); 13, 14, 16 and newer can.
GDB_BROKEN_MAJORS = (15,)
GDB_MIN = (12, 0)
# gdb older than 16 cannot call a function in the debugged program on a CPU with AMX tiles (its XSAVE
# layout predates them: "Couldn't write extended state status: Bad address"); the debugger calls into
# the program to hand a step to debugpy and to run Python there.
GDB_AMX_MIN = (16, 0)
CPU_FLAGS_FILE = "/proc/cpuinfo"
# A modern gdb from PyPI: the wheel installs bin/gdb into the environment and embeds its Python.
GDB_WHEEL = "gdb-for-pwndbg"
GDB_WHEEL_REQUIREMENT = "gdb-for-pwndbg>=16.3,<19"
GDB_WHEEL_PYTHONS = ((3, 11), (3, 12), (3, 13))  # manylinux wheels exist for cp311..cp313


@dataclass(frozen=True)
class Tested:
    python: str
    numba: str
    gdb: str
    suites: str  # what `make test` runs on this combination


# Every combination `make test` runs (the Makefile's test-compat targets build the same venvs).
TESTED: tuple[Tested, ...] = (
    Tested("3.11", "0.68.1", "13.1 (Debian 12)", "all suites"),
    Tested(
        "3.12", "0.65.1", "13.1 (Debian 12)", "analysis, record, language server (subsets), one debug session"
    ),
    Tested(
        "3.10", "0.61.2", "13.1 (Debian 12)", "analysis, record, language server (subsets), one debug session"
    ),
    Tested("3.13", "0.68.1", "16.3 (PyPI gdb-for-pwndbg)", "debugger (session, breakpoints, frames)"),
    Tested("3.11", "0.68.1", "18.1 (PyPI gdb-for-pwndbg)", "debugger (session, breakpoints, frames)"),
)


def version_tuple(text: str | None) -> tuple[int, ...]:
    """(major, minor[, patch]) from a version string such as '0.65.1', '16.3' or '0.61.0rc1'; () if none."""
    if not text:
        return ()
    match = re.match(r"\s*(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not match:
        return ()
    return tuple(int(g) for g in match.groups() if g is not None)


def install_command(python: str = sys.executable, upgrade: bool = False) -> str:
    flag = "-U " if upgrade else ""
    return f'"{python}" -m pip install {flag}"{NUMBA_REQUIREMENT}"'


@dataclass(frozen=True)
class NumbaVerdict:
    status: str  # "ok" | "newer" (works, untested) | "old" | "missing"
    version: str | None
    message: str  # what the user reads; when not usable, it ends with the command that fixes it
    fix: str = ""  # that command alone

    @property
    def usable(self) -> bool:
        return self.status in ("ok", "newer")


def numba_verdict(version: str | None, python: str = sys.executable, reason: str = "") -> NumbaVerdict:
    """The one answer to "is this Numba supported?" for every part of Numba Lens."""
    if version is None:
        why = f" ({reason})" if reason else ""
        return NumbaVerdict(
            "missing",
            None,
            f"Numba cannot be imported in {python}{why}. Numba Lens needs {NUMBA_REQUIREMENT}. "
            f"Install it with: {install_command(python)}",
            install_command(python),
        )
    parsed = version_tuple(version)[:2]
    if not parsed or parsed < NUMBA_MIN:
        return NumbaVerdict(
            "old",
            version,
            f"Numba {version} in {python} is too old; Numba Lens needs {NUMBA_REQUIREMENT}. "
            f"Upgrade with: {install_command(python, upgrade=True)}",
            install_command(python, upgrade=True),
        )
    if parsed >= NUMBA_MAX:
        return NumbaVerdict(
            "newer",
            version,
            f"Numba {version} is newer than the tested range ({NUMBA_REQUIREMENT}); results may be incomplete.",
        )
    return NumbaVerdict("ok", version, f"Numba {version}")


def python_supported(version: tuple[int, ...] = tuple(sys.version_info[:2])) -> bool:
    return PYTHON_MIN <= tuple(version[:2]) < PYTHON_MAX


def gdb_can_see_jit(version: str | None) -> bool:
    """False for gdb 15.x and for a gdb too old or unparsable to trust."""
    parsed = version_tuple(version)
    return bool(parsed) and parsed[:2] >= GDB_MIN and parsed[0] not in GDB_BROKEN_MAJORS


def cpu_has_amx(cpuinfo: str) -> bool:
    """Whether a CPU has AMX tiles (the `amx_tile` flag Linux lists in /proc/cpuinfo)."""
    return any(line.startswith("flags") and "amx_tile" in line.split() for line in cpuinfo.splitlines())


@functools.cache
def this_cpu_has_amx() -> bool:
    """cpu_has_amx of this machine, read once (each gdb the launch weighs asks)."""
    try:
        with open(CPU_FLAGS_FILE, encoding="utf-8", errors="replace") as handle:
            return cpu_has_amx(handle.read())
    except OSError:
        return False


def gdb_calls_functions(version: str | None, amx: bool | None = None) -> bool:
    """False for a gdb older than 16 on a CPU with AMX (`amx`: whether it has, else this CPU's flags)."""
    if version_tuple(version)[:2] >= GDB_AMX_MIN:
        return True
    return not (this_cpu_has_amx() if amx is None else amx)


def gdb_calls_no_functions_text(version: str | None) -> str:
    """What a gdb that cannot call functions here costs the user (the launch's console note, doctor's check)."""
    return (
        f"gdb {version} cannot call functions in the program on this CPU (AMX tiles; fixed in gdb 16): a step "
        "from jitted code into Python stops without debugpy, and Python values come from memory"
    )


def gdb_that_calls_functions_hint() -> str:
    """How to get a gdb that can call functions here: PyPI's for this Python where it has one."""
    if gdb_wheel_available():
        return "Run `python -m pyserver doctor --fix` (installs gdb 18 from PyPI for this Python), or use gdb 16+ ('gdbPath')"
    return (
        "Install gdb 16 or newer (your distribution's, or PyPI's gdb-for-pwndbg under Python 3.11 to 3.13) and "
        "set 'gdbPath'"
    )


def gdb_usable(version: str | None) -> bool:
    """A gdb the debugger can drive fully here: it sees jitted code and can call functions in the program."""
    return gdb_can_see_jit(version) and gdb_calls_functions(version)


def gdb_wheel_available(python_version: tuple[int, ...] = tuple(sys.version_info[:2])) -> bool:
    return tuple(python_version[:2]) in GDB_WHEEL_PYTHONS and sys.platform.startswith("linux")


def tested_table_markdown() -> str:
    """The table of tested combinations, as docs/installing.md shows it."""
    rows = ["| Python | Numba | gdb | `make test` runs |", "| --- | --- | --- | --- |"]
    rows += [f"| {t.python} | {t.numba} | {t.gdb} | {t.suites} |" for t in TESTED]
    return "\n".join(rows)
