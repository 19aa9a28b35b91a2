"""`%%numba_lens_profile` in a real ipykernel: the cell runs, the jitted function defined in a cell gets
its per-line heat (with the cell's source), and a speedscope flame graph is written."""

from __future__ import annotations

import json
from pathlib import Path

from kernel_session import Kernel

HOT = """import numpy as np
from numba import njit

@njit
def hot(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += np.sin(a[i]) * np.cos(a[i])
    return s

hot(np.ones(10))"""


def test_profile_a_cell(tmp_path: Path) -> None:
    kernel = Kernel(tmp_path)
    try:
        kernel.run("%load_ext pyserver.notebook")
        kernel.run(HOT)
        said, displays = kernel.run(
            "%%numba_lens_profile\nx = np.random.rand(2_000_000)\nfor _ in range(8):\n    done = hot(x)"
        )
        kernel_value, _ = kernel.run("print(type(done).__name__)")
    finally:
        kernel.stop()
    assert kernel_value.strip() == "float"  # the cell really ran
    assert "Numba Lens profile:" in said, said
    hot_line = next(line for line in said.splitlines() if "hot:8" in line)
    assert "np.sin(a[i])" in hot_line and float(hot_line.split("%")[0]) > 30, said
    assert any("text/html" in display and "hot" in display["text/html"] for display in displays)
    flames = list((tmp_path / ".numba-lens" / "profiles").glob("*.speedscope.json"))
    assert len(flames) == 1
    flame = json.loads(flames[0].read_text(encoding="utf-8"))
    assert flame["$schema"].startswith("https://www.speedscope.app") and flame["profiles"]
    assert any(frame["name"].startswith("hot") for frame in flame["shared"]["frames"])


def test_an_estimated_line_says_how_many_samples_were_taken() -> None:
    from pyserver.notebook.profile_magic import heat_table

    profile = {
        "lines": [
            {"jitted": True, "fraction": 0.6, "samples": 120, "taken": 20, "function": "f", "line": 3},
            {"jitted": True, "fraction": 0.4, "samples": 80, "taken": 80, "function": "g", "line": 9},
        ]
    }
    text, table = heat_table(profile)
    first, second = text.splitlines()
    assert "~120 (20 taken)" in first and "f:3" in first
    assert " 80  g:9" in second and "taken" not in second
    assert "~120 (20 taken)" in table
