"""Analysis results as LSP diagnostics: severities from the `severity` setting ("off" drops a code),
related information, `codeDescription` links to Numba's documentation (pyserver.analysis.codes), tags,
and in `data` the full Numba text, the plain-language `why`/`fix` and the error class
(pyserver.analysis.worker.report.explain) for the hover and the quick fixes."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from pyserver.analysis.api import MAIN_BLOCK_REASON, explain_diagnostic
from pyserver.analysis.codes import doc_link
from pyserver.analysis.model import Diagnostic, Range
from pyserver.caches import BoundedCache, bounded_cache
from pyserver.lsp.text import index_to_client, line_at, split_lines

if TYPE_CHECKING:
    from pyserver.analysis.model import FileResult
    from pyserver.lsp.settings import Settings
    from pyserver.lsp.views import AnalysedDocument

SEVERITY = {
    "error": lsp.DiagnosticSeverity.Error,
    "warning": lsp.DiagnosticSeverity.Warning,
    "information": lsp.DiagnosticSeverity.Information,
    "hint": lsp.DiagnosticSeverity.Hint,
}
TAGS = {"unnecessary": lsp.DiagnosticTag.Unnecessary, "deprecated": lsp.DiagnosticTag.Deprecated}


def same_path(a: str, b: str) -> bool:
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def severity_for(diagnostic: Diagnostic, overrides: Mapping[str, str]) -> str | None:
    """The severity to publish, or None when the user switched the code off."""
    level = overrides.get(diagnostic.code, diagnostic.severity)
    return None if level == "off" else level


class RangeConverter:
    """Code-point ranges of one file -> the client's position encoding (UTF-16 unless negotiated)."""

    def __init__(self, source_of: Callable[[str], str | None], encoding: str = "utf-16") -> None:
        self._source_of = source_of
        self._encoding = encoding
        self._lines: dict[str, list[str]] = {}

    def _file_lines(self, path: str) -> list[str]:
        if path not in self._lines:
            source = self._source_of(path)
            self._lines[path] = split_lines(source) if source is not None else []
        return self._lines[path]

    def positions(self, path: str, value: Range) -> tuple[int, int, int, int]:
        """The range's start line and character, end line and character, as the client counts them."""
        lines = self._file_lines(path)
        start_line = max(value.start.line, 0)
        end_line = max(value.end.line, start_line)
        return (
            start_line,
            index_to_client(line_at(lines, start_line), value.start.character, self._encoding),
            end_line,
            index_to_client(line_at(lines, end_line), value.end.character, self._encoding),
        )

    def range(self, path: str, value: Range) -> lsp.Range:
        start_line, start_character, end_line, end_character = self.positions(path, value)
        return lsp.Range(
            start=lsp.Position(start_line, start_character), end=lsp.Position(end_line, end_character)
        )


def to_lsp(diagnostic: Diagnostic, level: str, ranges: RangeConverter) -> lsp.Diagnostic:
    related = [
        lsp.DiagnosticRelatedInformation(
            location=lsp.Location(
                uri=from_fs_path(info.path) or info.path, range=ranges.range(info.path, info.range)
            ),
            message=info.message,
        )
        for info in diagnostic.relatedInformation
    ]
    href = diagnostic.codeDescription or doc_link(diagnostic.code)
    data: dict[str, Any] = dict(diagnostic.data or {})
    data.setdefault("function", diagnostic.function)
    data.setdefault("signature", diagnostic.signature)
    if diagnostic.fullMessage:
        data.setdefault("fullMessage", diagnostic.fullMessage)
    explanation = explain_diagnostic(diagnostic)
    data.setdefault("why", explanation.why)
    data.setdefault("fix", explanation.fix)
    if explanation.kind:
        data.setdefault("errorClass", explanation.kind)
        for key, value in explanation.data.items():
            data.setdefault(key, value)
    return lsp.Diagnostic(
        range=ranges.range(diagnostic.path, diagnostic.range),
        message=diagnostic.message,
        severity=SEVERITY[level],
        code=diagnostic.code,
        code_description=lsp.CodeDescription(href=href) if href else None,
        source=diagnostic.source or "numba",
        tags=[TAGS[tag] for tag in diagnostic.tags if tag in TAGS] or None,
        related_information=related or None,
        data=data,
    )


def type_hint_diagnostics(
    analysed: Any, overrides: Mapping[str, str], ranges: RangeConverter
) -> list[lsp.Diagnostic]:
    """Type-instability hints (pyserver.analysis.worker.report.insight.type_hints) of an AnalysedDocument, published
    when `numbaLens.typeHints` is on; `severity` can still switch a code off or raise it."""
    from pyserver.analysis.api import type_hints

    return publishable(analysed.path, type_hints(analysed.result, analysed.source), overrides, ranges)


def publishable(
    path: str, diagnostics: list[Diagnostic], overrides: Mapping[str, str], ranges: RangeConverter
) -> list[lsp.Diagnostic]:
    """The diagnostics of one analysed file, as published for it (other files publish their own)."""
    published = []
    for diagnostic in diagnostics:
        if not same_path(diagnostic.path, path):
            continue
        level = severity_for(diagnostic, overrides)
        if level is None or level not in SEVERITY:
            continue
        published.append(to_lsp(diagnostic, level, ranges))
    return published


NOT_RUN = "not-run"  # the code of the faded hints on top-level statements the analysis did not run (codes.py)
# A notebook's edit publishes dozens of the same hints again: each is made once per (range, reason) and
# the same object published again (published diagnostics are never changed in place; notebooks.split
# moves a copy into its cell).
_NOT_RUN_HINTS: BoundedCache[tuple[int, int, int, int, str], lsp.Diagnostic] = bounded_cache(
    "convert.not_run_hints", 4096
)


def not_run_hints(
    path: str, source: str, result: FileResult, overrides: Mapping[str, str], ranges: RangeConverter
) -> list[lsp.Diagnostic]:
    """The top-level statements definitions-only loading did not run, faded (Unnecessary) with a hint
    that says why; `"severity": {"not-run": "off"}` hides them."""
    if overrides.get(NOT_RUN, "hint") == "off":
        return []
    lines = source.splitlines() or [""]
    hints = []
    for skipped in result.skipped:
        if skipped.reason == MAIN_BLOCK_REASON:
            continue  # never run in any mode, as every Python user expects: not worth fading
        end = min(max(skipped.end_line, skipped.line), len(lines)) - 1
        positions = ranges.positions(path, Range.of(skipped.line - 1, 0, end, len(lines[end])))
        key = (*positions, skipped.reason)
        hint = _NOT_RUN_HINTS.get(key)
        if hint is None:
            start_line, start_character, end_line, end_character = positions
            hint = _NOT_RUN_HINTS[key] = lsp.Diagnostic(
                range=lsp.Range(
                    lsp.Position(start_line, start_character), lsp.Position(end_line, end_character)
                ),
                message=(
                    f"Not run by Numba Lens's analysis: {skipped.reason}. Only the top-level statements that "
                    'defining the jitted functions needs run (numbaLens.moduleLoading: "definitions").'
                ),
                severity=lsp.DiagnosticSeverity.Hint,
                code=NOT_RUN,
                source="numba-lens",
                tags=[lsp.DiagnosticTag.Unnecessary],
            )
        hints.append(hint)
    return hints


def document_diagnostics(
    analysed: AnalysedDocument, settings: Settings, encoding: str
) -> list[lsp.Diagnostic]:
    """Everything published for an analysed document: its diagnostics, the not-run hints, and the
    type-instability hints when `numbaLens.typeHints` is on."""

    def source_of(path: str) -> str | None:
        if same_path(path, analysed.path):
            return analysed.source
        try:
            return Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    ranges = RangeConverter(source_of, encoding)
    published = publishable(analysed.path, analysed.result.diagnostics, settings.severity, ranges)
    published += not_run_hints(analysed.path, analysed.source, analysed.result, settings.severity, ranges)
    if settings.type_hints:  # off by default
        published += type_hint_diagnostics(analysed, settings.severity, ranges)
    return published
