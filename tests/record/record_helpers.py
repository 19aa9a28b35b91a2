"""What the record tests share: running `python -m pyserver ...` on a folder, with this checkout's code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}


def pyserver(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pyserver", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=ENV,
    )
