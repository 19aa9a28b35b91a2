"""The live kernel as a source of signatures, with a real ipykernel through jupyter_client:
`%load_ext pyserver.notebook` records the compiles of the notebook's cells under the notebook, with
origin "kernel"; the analysis of the notebook then shows them as the "kernel" source, merged with the
same types from a call (never doubled). `record -- jupyter nbconvert --execute nb.ipynb` records them
too (its hook reaches the kernel subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from kernel_session import Kernel, kernel_env

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.notebook_check import analyse_notebook

CELLS = [
    "import numpy as np\nfrom numba import njit",
    "@njit\ndef kernel(a):\n    s = 0.0\n    for x in a:\n        s += x\n    return s",
    "@njit\ndef scale(a, k):\n    return a * k",
    "kernel(np.ones(3))\nscale(np.ones(2, dtype=np.int32), 2.5)",
]


def write_notebook(path: Path, cells: list[str]) -> None:
    document = nbformat.v4.new_notebook()
    document.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    document.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(document, str(path))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / ".numba-lens").mkdir()
    write_notebook(tmp_path / "nb.ipynb", CELLS)
    return tmp_path


@pytest.fixture
def kernel(workspace: Path) -> Iterator[Kernel]:
    started = Kernel(workspace)
    try:
        yield started
    finally:
        started.stop()


def recorded(workspace: Path) -> dict[str, Any]:
    return json.loads((workspace / ".numba-lens" / "signatures.json").read_text(encoding="utf-8"))


def kernel_signatures(workspace: Path) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    engine = AnalysisEngine(str(workspace), timeout_s=120)
    try:
        result = analyse_notebook(engine, workspace / "nb.ipynb")
    finally:
        engine.close()
    return {f.name: [(tuple(s.args), s.source) for s in f.signatures] for f in result.functions}


def test_the_kernels_compiles_are_a_source_of_their_own(workspace: Path, kernel: Kernel) -> None:
    said, _ = kernel.run("%load_ext pyserver.notebook")
    assert "recording this kernel's compiles of nb.ipynb" in said
    for cell in CELLS:
        kernel.run(cell)
    functions = recorded(workspace)["functions"]
    assert functions["nb.ipynb::kernel"][0]["args"] == ["array(float64, 1d, C)"]
    assert functions["nb.ipynb::kernel"][0]["origin"] == "kernel"
    assert functions["nb.ipynb::scale"][0]["args"] == ["array(int32, 1d, C)", "float64"]
    found = kernel_signatures(workspace)
    # The call in the last cell gives the same types: one signature, from the kernel.
    assert found["kernel"] == [(("array(float64, 1d, C)",), "kernel")]
    assert (("array(int32, 1d, C)", "float64"), "kernel") in found["scale"]
    assert len(found["scale"]) == 1


def test_record_reaches_the_kernel_of_nbconvert(workspace: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyserver",
            "record",
            "--",
            sys.executable,
            "-m",
            "jupyter",
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--output",
            "executed.ipynb",
            "nb.ipynb",
        ],
        cwd=workspace,
        env=kernel_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    functions = recorded(workspace)["functions"]
    assert functions["nb.ipynb::kernel"][0]["args"] == ["array(float64, 1d, C)"]
    assert functions["nb.ipynb::kernel"][0]["origin"] == "kernel"
