"""Helpers for the profiler tests: run `python -m pyserver profile` on a program of programs/."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

PROGRAMS = Path(__file__).resolve().parent / "programs"
ROOT = Path(__file__).resolve().parent.parent.parent


def line_of(program: Path, marker: str) -> int:
    return next(i for i, text in enumerate(program.read_text().splitlines(), 1) if marker in text)


def run_profile(
    tmp: Path,
    program: Path,
    *args: str,
    fmt: str = "json",
    timeout: float = 240,
    options: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> tuple[Any, subprocess.CompletedProcess[str]]:
    """`options` go to the profiler; `env` is the whole environment (default: this one)."""
    out = tmp / f"profile.{fmt}"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyserver",
            "profile",
            "--format",
            fmt,
            "--out",
            str(out),
            *options,
            "--",
            sys.executable,
            str(program),
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    data = (
        json.loads(out.read_text())
        if out.exists() and fmt != "text"
        else (out.read_text() if out.exists() else None)
    )
    return data, proc


def process_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] == "Z"  # a zombie would be a missing wait
    except FileNotFoundError:
        return True
