"""Emacs's eglot against the language server, set up as docs/editors.md tells Emacs users to.

`make test` does not install Emacs (Debian's emacs-nox and elpa-eglot: Emacs 28.2 and eglot 1.9 on
Debian 12); where they are installed, this runs `emacs --batch -l emacs/eglot.el`, which opens a file
with a typing error and writes flymake's diagnostics and a hover to a JSON file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from editor_files import line_index, workspace_with

HERE = Path(__file__).resolve().parent
EMACS = shutil.which("emacs")


def eglot_available() -> bool:
    if EMACS is None:
        return False
    probe = subprocess.run(
        [EMACS, "--batch", "--eval", "(kill-emacs (if (require 'eglot nil t) 0 1))"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(
    not eglot_available(), reason="Emacs with eglot is not installed (apt-get install emacs-nox elpa-eglot)"
)


def test_eglot_gets_flymake_diagnostics_and_hover(tmp_path: Path) -> None:
    source = workspace_with(tmp_path, "kernel_with_error.py")
    lines = source.read_text(encoding="utf-8").splitlines()
    x_line = line_index(source, "x = a[i]")
    out = tmp_path / "eglot.json"
    assert EMACS is not None
    completed = subprocess.run(
        [EMACS, "--batch", "-l", str(HERE / "emacs" / "eglot.el")],
        cwd=tmp_path,
        env={
            **os.environ,
            "HOME": str(tmp_path),  # nothing of the user's Emacs set-up is read
            "NUMBA_LENS_PYTHON": sys.executable,
            "NUMBA_LENS_FILE": str(source),
            "NUMBA_LENS_OUT": str(out),
            "NUMBA_LENS_HOVER_LINE": str(x_line),
            "NUMBA_LENS_HOVER_COL": str(lines[x_line].index("x")),
        },
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.is_file(), f"emacs wrote no result (exit {completed.returncode}):\n{completed.stderr}"
    result = json.loads(out.read_text(encoding="utf-8"))
    assert not result.get("errors"), result
    assert result["server_name"] == "numba-lens"
    assert result["got_diagnostics"] is True
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["line"] == line_index(source, "return x + (1, 2)")
    assert diagnostic["text"] == "+" and diagnostic["type"] == "eglot-error"
    assert "typing-error" in diagnostic["message"]
    assert "No implementation of function" in diagnostic["message"]
    assert "x: float64" in result["hover"]
