"""A gdb that can see Numba's jitted code, found or installed without editing a setting.

gdb 15.x cannot see Numba's JIT code (fixed in gdb 16) and is what Ubuntu 24.04 ships.
PyPI's `gdb-for-pwndbg` (16.3 to 18.1, manylinux wheels for CPython 3.11 to 3.13) installs a `gdb` into
an environment's bin/ that embeds that environment's Python. `install_gdb` puts it either in a folder of
Numba Lens's own (one venv per Python version under the gdb home: the extension passes its global
storage as NUMBA_LENS_GDB_HOME) or into the interpreter's own environment; `resolve_gdb`, used by the
debugger and the doctor, then finds it: from then on that gdb is used whenever the one on PATH cannot
see jitted code. An explicit gdbPath always wins (a name on PATH, a gdb file, or a virtual environment
whose bin/ holds a gdb).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from pyserver.versions import (
    GDB_WHEEL,
    GDB_WHEEL_REQUIREMENT,
    gdb_can_see_jit,
    gdb_usable,
    gdb_wheel_available,
)

HOME_VARIABLE = "NUMBA_LENS_GDB_HOME"
VERSION_TIMEOUT_S = 20.0
INSTALL_TIMEOUT_S = 600.0


def gdb_version(gdb: str) -> str | None:
    """The version gdb prints on its first line, e.g. '13.1' for 'GNU gdb (Debian 13.1-3) 13.1'."""
    try:
        out = subprocess.run(
            [gdb, "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = out.stdout.splitlines()[0] if out.stdout else ""
    match = re.search(r"(\d+\.\d+(?:\.\d+)?)\s*$", first) or re.search(r"(\d+\.\d+)", first)
    return match.group(1) if match else None


def gdb_home() -> Path:
    """Where Numba Lens keeps the gdb it installs: $NUMBA_LENS_GDB_HOME, else the user's data folder."""
    configured = os.environ.get(HOME_VARIABLE)
    if configured:
        return Path(configured).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "numba-lens" / "gdb"


def managed_environment(home: Path | None = None, version: tuple[int, ...] | None = None) -> Path:
    major, minor = (version or sys.version_info)[:2]
    return (home or gdb_home()) / f"py{major}.{minor}"


def managed_gdb(home: Path | None = None) -> str | None:
    """The gdb installed under the gdb home: the one for this Python first (its embedded Python can then
    import this environment's numpy for Numba's printers), else any."""
    base = home or gdb_home()
    candidates = [managed_environment(base) / "bin" / "gdb"]
    if base.is_dir():
        candidates += sorted(base.glob("py3.*/bin/gdb"), reverse=True)
    for candidate in candidates:
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def environment_gdb() -> str | None:
    """A gdb installed into this interpreter's own environment (pip install gdb-for-pwndbg)."""
    candidate = Path(sysconfig.get_path("scripts")) / "gdb"
    return str(candidate) if os.access(candidate, os.X_OK) else None


def explicit_gdb(requested: str) -> str:
    """gdbPath as given: `~` expanded; a virtual environment's folder means its bin/gdb."""
    path = os.path.expanduser(requested)
    if os.path.isdir(path):
        inside = os.path.join(path, "bin", "gdb")
        if os.path.isfile(inside):
            return inside
    return path


def resolve_gdb(requested: object = None, home: Path | None = None) -> str:
    """The gdb to run: gdbPath when given; else gdb on PATH when it can see jitted code and call
    functions in the program on this CPU; else the gdb Numba Lens installed (gdb home, then this
    environment's bin/); else whatever gdb is on PATH (whose problem the caller then reports), or "gdb"."""
    if isinstance(requested, str) and requested.strip():
        return explicit_gdb(requested.strip())
    system = shutil.which("gdb")
    if system is not None and gdb_usable(gdb_version(system)):
        return system
    for candidate in (managed_gdb(home), environment_gdb()):
        if candidate is not None and candidate != system and gdb_usable(gdb_version(candidate)):
            return candidate
    return system or "gdb"


class InstallError(Exception):
    """Why the gdb could not be installed, with what to do instead."""


@dataclass
class Installed:
    gdb: str
    version: str
    where: str  # "managed" | "environment"


def _run(command: list[str], what: str) -> None:
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InstallError(f"{what} failed: {exc}") from None
    if done.returncode != 0:
        detail = (done.stderr.strip() or done.stdout.strip())[-800:]
        raise InstallError(f"{what} failed ({' '.join(command)}):\n{detail}")


def install_gdb(home: Path | None = None, into_environment: bool = False) -> Installed:
    """Install gdb-for-pwndbg for this interpreter and check that the gdb it brings can see jitted code."""
    version = ".".join(map(str, sys.version_info[:2]))
    if not gdb_wheel_available():
        raise InstallError(
            f"{GDB_WHEEL} has wheels for CPython 3.11 to 3.13 on Linux only (this is Python {version} on "
            f"{sys.platform}). Install gdb 16 or newer from your distribution (or gdb 13/14) and set gdbPath."
        )
    if into_environment:
        python = sys.executable
        gdb = Path(sysconfig.get_path("scripts")) / "gdb"
        where = "environment"
    else:
        target = managed_environment(home)
        if not (target / "bin" / "python").exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            _run([sys.executable, "-m", "venv", str(target)], f"creating a virtual environment in {target}")
        python = str(target / "bin" / "python")
        gdb = target / "bin" / "gdb"
        where = "managed"
    _run(
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q", GDB_WHEEL_REQUIREMENT],
        f"pip install {GDB_WHEEL_REQUIREMENT}",
    )
    found = gdb_version(str(gdb))
    if found is None:
        raise InstallError(
            f"{gdb} was installed but does not run: gdb-for-pwndbg needs this Python's shared library "
            f"(Debian/Ubuntu: sudo apt-get install libpython{version}; pyenv builds have it)"
        )
    if not gdb_can_see_jit(found):
        raise InstallError(f"{gdb} is gdb {found}, which cannot see Numba's jitted code")
    return Installed(str(gdb), found, where)
