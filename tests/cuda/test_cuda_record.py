"""`record` under the CUDA simulator stores each kernel's launch types, and the analysis uses them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cuda_kernels.py"


def test_simulated_launches_are_recorded_and_used(tmp_path: Path) -> None:
    program = tmp_path / "kernels.py"
    shutil.copy(EXAMPLE, program)
    program.write_text(program.read_text().replace("(1, 2)", "1"))  # runs without the mistake
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    subprocess.run(
        [sys.executable, "-m", "pyserver", "record", "--", sys.executable, "kernels.py"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    recorded = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())["functions"]
    assert [e["args"] for e in recorded["kernels.py::add_one"]] == [["array(float64, 1d, C)"] * 2]
    env.pop("NUMBA_ENABLE_CUDASIM")
    check = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", "kernels.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    functions = {f["name"]: f for f in json.loads(check.stdout)["functions"]}
    (signature,) = functions["add_one"]["signatures"]
    assert signature["source"] == "recorded" and signature["ok"]
