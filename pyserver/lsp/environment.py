"""Is a usable Numba importable in this interpreter? Checked in a child process with the server's
environment, as the analysis worker will see it, so the server itself never imports Numba and
stays up when Numba is missing, broken or too old."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

from pyserver.versions import NUMBA_REQUIREMENT as REQUIREMENT
from pyserver.versions import install_command, numba_verdict

__all__ = ["REQUIREMENT", "NumbaCheck", "check_numba", "install_command"]

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
        return NumbaCheck(False, None, numba_verdict(None, reason=last).message)
    verdict = numba_verdict(probe.stdout.strip())
    return NumbaCheck(verdict.usable, verdict.version, verdict.message)
