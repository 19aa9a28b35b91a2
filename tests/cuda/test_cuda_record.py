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


def test_a_module_that_switches_the_simulator_on_itself_is_analysed(tmp_path: Path) -> None:
    """A notebook's demo sets `config.ENABLE_CUDASIM = 1` before importing `cuda`: its kernels are the
    simulator's Python objects, which nothing types. The module's CPU functions are typed as ever, and the
    kernel's signature says why it is unknown instead of failing the whole module."""
    (tmp_path / "demo.py").write_text(
        "import numpy as np\nfrom numba import njit, config\n\nconfig.ENABLE_CUDASIM = 1\nfrom numba import cuda\n\n\n"
        "@njit\ndef plus1(x):\n    return x + 1\n\n\n@cuda.jit\ndef kernel(x):\n    x[0] = 1\n\n\n"
        "plus1(1)\nkernel[1, 1](np.zeros(1))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    check = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", "demo.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(check.stdout)
    assert report["diagnostics"] == []
    functions = {f["name"]: f["signatures"] for f in report["functions"]}
    assert [(s["args"], s["return_type"], s["mode"]) for s in functions["plus1"]] == [
        (["int64"], "int64", "nopython")
    ]
    (kernel,) = functions["kernel"]
    assert kernel["mode"] == "unknown" and kernel["return_type"] is None
