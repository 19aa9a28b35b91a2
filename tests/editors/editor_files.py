"""The files an editor test opens: a project folder with a copy of one of programs/, and line lookups."""

from __future__ import annotations

import shutil
from pathlib import Path

PROGRAMS = Path(__file__).resolve().parent / "programs"


def workspace_with(folder: Path, program: str) -> Path:
    """`folder` made a project (the root markers editors look for) holding a copy of programs/<program>."""
    (folder / "pyproject.toml").write_text('[project]\nname = "example"\n', encoding="utf-8")
    target = folder / program
    shutil.copy(PROGRAMS / program, target)
    return target


def line_index(path: Path, text: str) -> int:
    """The 0-based number of the line of `path` that is `text` (stripped)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(index for index, line in enumerate(lines) if line.strip() == text)
