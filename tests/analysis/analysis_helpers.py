"""Helpers shared by the analysis tests (imported as a plain module: pytest puts this folder on sys.path)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import Diagnostic, FileResult


class Workspace:
    """A scratch workspace whose files are analysed by a shared, warm engine."""

    def __init__(self, root: Path, engine: AnalysisEngine) -> None:
        self.root = root
        self.engine = engine

    def write(self, name: str, source: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return path

    def analyze(self, name: str, source: str | None = None) -> FileResult:
        path = self.root / name
        if source is not None:
            source = textwrap.dedent(source)
            if not path.exists():
                path.write_text(source, encoding="utf-8")
        return self.engine.analyze(path, source)


def by_code(result: FileResult, code: str) -> list[Diagnostic]:
    return [d for d in result.diagnostics if d.code == code]


def text_at(source: str, diagnostic: Diagnostic) -> str:
    """The source text a single-line diagnostic range covers."""
    start, end = diagnostic.range.start, diagnostic.range.end
    assert start.line == end.line, diagnostic
    return textwrap.dedent(source).splitlines()[start.line][start.character : end.character]
