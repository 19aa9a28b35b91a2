"""The profiler tests' shared fixture: one profile of programs/workload.py for the whole session."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from profile_helpers import PROGRAMS, run_profile


@pytest.fixture(scope="session")
def workload_profile(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[str, Any], subprocess.CompletedProcess[str], Path]:
    if os.uname().machine != "x86_64":
        pytest.skip("the sampler reads x86-64 registers")
    tmp = tmp_path_factory.mktemp("profile")
    program = PROGRAMS / "workload.py"
    data, proc = run_profile(tmp, program, "1.5")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return data, proc, program
