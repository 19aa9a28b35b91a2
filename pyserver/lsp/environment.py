"""Is a usable Numba importable in this interpreter? Checked in a child process with the server's
environment, as the analysis worker will see it, so the server itself never imports Numba and
stays up when Numba is missing, broken or too old."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

SUPPORTED = ((0, 68), (0, 69))  # [min, max) as in pyproject.toml
REQUIREMENT = "numba>=0.68,<0.69"
# The probe dies with the server (PR_SET_PDEATHSIG, Linux) and exits at once if the server is gone.
_PROBE = """
import os, sys
try:
    import ctypes, signal
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)
except Exception:
    pass
if os.getppid() != int(sys.argv[1]):
    sys.exit(3)
import numba
sys.stdout.write(numba.__version__)
"""


@dataclass(frozen=True)
class NumbaCheck:
    ok: bool
    version: str | None
    message: str  # what the user reads: why not, and the command that fixes it


def install_command(python: str = sys.executable) -> str:
    return f'"{python}" -m pip install "{REQUIREMENT}"'


def _version_tuple(version: str) -> tuple[int, int]:
    parts = version.split(".")
    try:
        return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)
    except (IndexError, ValueError):
        return (0, 0)


def check_numba(timeout_s: float = 60.0) -> NumbaCheck:
    try:
        probe = subprocess.run(
            [sys.executable, "-c", _PROBE, str(os.getpid())],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return NumbaCheck(False, None, f"could not check for Numba in {sys.executable}: {exc}")
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["import failed"])[-1]
        return NumbaCheck(
            False,
            None,
            f"Numba cannot be imported in {sys.executable} ({last}). Install it with: {install_command()}",
        )
    version = probe.stdout.strip()
    if _version_tuple(version) < SUPPORTED[0]:
        return NumbaCheck(
            False,
            version,
            f"Numba {version} in {sys.executable} is too old; Numba Lens needs {REQUIREMENT}. "
            f"Upgrade with: {install_command()}",
        )
    if _version_tuple(version) >= SUPPORTED[1]:
        return NumbaCheck(
            True,
            version,
            f"Numba {version} is newer than the tested range ({REQUIREMENT}); results may be incomplete.",
        )
    return NumbaCheck(True, version, f"Numba {version}")
