"""The `python -m pyserver` entry point: every subcommand parses and is listed."""

from __future__ import annotations

import subprocess
import sys

from pyserver.__main__ import SUBCOMMANDS


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pyserver", *args], capture_output=True, text=True, timeout=120
    )


def test_help_lists_every_subcommand() -> None:
    out = run_cli("--help")
    assert out.returncode == 0
    for name in ("lsp", "check", "record", "dap", "doctor", "profile"):
        assert name in out.stdout
    assert set(SUBCOMMANDS) == {"lsp", "check", "record", "dap", "doctor", "profile"}


def test_each_subcommand_has_help() -> None:
    for name in SUBCOMMANDS:
        out = run_cli(name, "--help")
        assert out.returncode == 0, out.stderr
        assert "usage:" in out.stdout


def test_no_subcommand_is_a_usage_error() -> None:
    assert run_cli().returncode == 2
