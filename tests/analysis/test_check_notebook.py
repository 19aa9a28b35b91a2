"""`python -m pyserver check` on notebooks: cell and line in text, JSON and SARIF; folders with
notebooks; bad input (malformed JSON, syntax errors, 500 cells, a cell that never ends, non-Python
cells) is reported, never run (real subprocesses)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pyserver.analysis.notebook import neutralise_line, notebook_module, parse_notebook

ROOT = Path(__file__).resolve().parents[2]


def check(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pyserver", "check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def notebook(cells: list[tuple[str, str]]) -> str:
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {"language_info": {"name": "python"}},
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": source}
                | ({"outputs": [], "execution_count": None} if kind == "code" else {})
                for kind, source in cells
            ],
        }
    )


def writes(marker: Path, number: int) -> str:
    return f"open({str(marker)!r} + '{number}', 'w').write('ran')"


def bad_notebook(marker: Path) -> str:
    return notebook(
        [
            ("markdown", "# Kernels"),
            ("code", f"import numpy as np\nfrom numba import njit\n{writes(marker, 1)}"),
            ("raw", "raw text"),
            ("code", f"@njit\ndef bad(x):\n    return x + 'a'\n\nbad(1)\n{writes(marker, 2)}"),
            ("code", "%%bash\necho hello > " + str(marker) + "bash"),
            ("code", f"while True: pass\n{writes(marker, 3)}"),
            ("code", "def oops(:\n    pass"),
            ("code", f"!touch {marker}shell\n%timeit bad(2)\n{writes(marker, 4)}"),
        ]
    )


def test_text_json_and_sarif_name_the_cell_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    (tmp_path / "nb.ipynb").write_text(bad_notebook(marker), encoding="utf-8")
    proc = check("nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("nb.ipynb:cell 4:3:") and "[typing-error]" in line for line in lines), lines
    assert any(line.startswith("nb.ipynb:cell 4:5:1: note:") for line in lines), lines
    assert any(line.startswith("nb.ipynb:cell 7:1:") and "Syntax error" in line for line in lines), lines
    payload = json.loads(check("nb.ipynb", "--format", "json", cwd=tmp_path).stdout)
    typing = next(d for d in payload["diagnostics"] if d["code"] == "typing-error")
    assert typing["data"]["cell"] == 4 and typing["range"]["start"]["line"] == 2
    sarif = json.loads(check("nb.ipynb", "--format", "sarif", cwd=tmp_path).stdout)
    result = next(r for r in sarif["runs"][0]["results"] if r["ruleId"] == "typing-error")
    location = result["locations"][0]
    assert result["properties"]["cell"] == 4
    assert location["physicalLocation"]["region"]["startLine"] == 3
    assert location["logicalLocations"] == [{"name": "cell 4"}]
    assert list(tmp_path.glob("ran*")) == [], "a statement of the notebook ran during the check"


def test_a_folder_with_notebooks_and_a_malformed_one(tmp_path: Path) -> None:
    (tmp_path / "good.ipynb").write_text(
        notebook([("code", "from numba import njit\n\n@njit\ndef f(x):\n    return x + 1\n\nf(1)")]),
        encoding="utf-8",
    )
    (tmp_path / "broken.ipynb").write_text("{not json", encoding="utf-8")
    checkpoints = tmp_path / ".ipynb_checkpoints"
    checkpoints.mkdir()
    (checkpoints / "old-checkpoint.ipynb").write_text("{not json", encoding="utf-8")
    proc = check(".", cwd=tmp_path)
    assert proc.returncode == 1
    assert "broken.ipynb:1:1: error: The notebook could not be analysed" in proc.stdout
    assert "checkpoint" not in proc.stdout
    assert "in 2 file(s); 1 of 1 jitted function(s) type-checked" in proc.stderr


def test_five_hundred_cells(tmp_path: Path) -> None:
    cells = [("code", "from numba import njit")]
    for number in range(499):
        cells.append(("code", f"@njit\ndef f{number}(x):\n    return x + {number}\n\nf{number}(1.0)"))
    (tmp_path / "big.ipynb").write_text(notebook(cells), encoding="utf-8")
    proc = check("big.ipynb", "--format", "json", cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    functions = json.loads(proc.stdout)["functions"]
    assert len(functions) == 499 and all(f["signatures"] for f in functions)


def test_ipython_syntax_is_neutralised_with_positions_kept() -> None:
    cases = {
        "%timeit kernel(a)": "0;      kernel(a)",
        "%timeit -n 10 -r 3 kernel(a)": "0;" + " " * 17 + "kernel(a)",
        "%time y = kernel(a)": "0;    y = kernel(a)",
        "!pip install numba": "#pip install numba",
        "%matplotlib inline": "#matplotlib inline",
        "kernel?": "#ernel?",
        "?kernel": "#kernel",
        "files = !ls -la": "files = ...#-la",
        "x = 1  # plain?": "x = 1  # plain?",
    }
    for line, expected in cases.items():
        assert neutralise_line(line) == expected
        assert len(neutralise_line(line)) == len(line)
    module = notebook_module(
        parse_notebook(notebook([("code", "%%time\nx = 1"), ("code", "%%html\n<b>x</b>"), ("code", "y = 2")]))
    )
    assert module.source.splitlines() == ["#%time", "x = 1", "", "", "y = 2"]
    assert module.cells[1].skipped and module.locate(4) == (module.cells[2], 0)
