"""The "Show type stability" view: each line of the file's jitted functions, coloured by its
types like Numba's `--annotate-html`, inside the editor. A line is

- "problem": an error on it, or a value Numba types as a Python object (pyobject, object mode);
- "unstable": a type-instability hint or a surprise on it (Optional, reflected list, 'A' layout in a
  loop, int promoted to float, formatted float, ...);
- "stable": every variable defined or read on it has one native type.

Lines without variables get nothing. Each line carries its variables' types and the reasons, for the
decoration's hover. Data: the last analysis (types per signature) and insight.type_hints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyserver.analysis.api import type_hints
from pyserver.analysis.model import FileResult
from pyserver.lsp.views import AnalysedDocument, function_views

LEVELS = ("stable", "unstable", "problem")


@dataclass
class LineTypes:
    line: int  # 0-based, in the current text
    level: str = "stable"
    types: list[str] = field(default_factory=list)  # "x: float64"
    reasons: list[str] = field(default_factory=list)

    def raise_to(self, level: str) -> None:
        if LEVELS.index(level) > LEVELS.index(self.level):
            self.level = level

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "level": self.level, "types": self.types, "reasons": self.reasons}


def _hints_and_problems(result: FileResult, source: str) -> list[tuple[int, str, str]]:
    """(1-based analysed line, level, reason) from diagnostics and type hints."""
    found = []
    for diagnostic in [*result.diagnostics, *type_hints(result, source)]:
        line = diagnostic.range.start.line + 1
        if diagnostic.severity == "error":
            found.append((line, "problem", f"{diagnostic.code}: {diagnostic.message}"))
        elif diagnostic.code.startswith("type-") or diagnostic.severity == "warning":
            level = "problem" if diagnostic.code == "type-object" else "unstable"
            found.append((line, level, f"{diagnostic.code}: {diagnostic.message}"))
    return found


def type_stability(source: str, analysed: AnalysedDocument | None) -> list[dict[str, Any]]:
    """Per jitted function of the current text: its name, whether its types are current, and its lines."""
    if analysed is None:
        return []
    marks = _hints_and_problems(analysed.result, analysed.source)
    functions = []
    for view in function_views(source, analysed):
        info = view.info
        if info is None or not info.signatures:
            continue
        lines: dict[int, LineTypes] = {}

        def at(analysed_line: int, view: Any = view, lines: dict[int, LineTypes] = lines) -> LineTypes:
            current = view.to_current(analysed_line)
            return lines.setdefault(current, LineTypes(current - 1))

        first, last = info.line, info.end_line or info.line
        for signature in info.signatures:
            for variable in signature.variables:
                if variable.name.startswith("$"):
                    continue
                for line in {variable.line, *variable.used_lines}:
                    if not first <= line <= last:
                        continue
                    entry = at(line)
                    shown = f"{variable.name}: {variable.type}"
                    if shown not in entry.types:
                        entry.types.append(shown)
                    if "pyobject" in variable.type:
                        entry.raise_to("problem")
            if signature.mode == "object":
                for line in range(first, last + 1):
                    at(line).raise_to("problem")
                    reason = "object mode: this function runs through the Python interpreter"
                    if reason not in at(line).reasons:
                        at(line).reasons.append(reason)
        for line, level, reason in marks:
            if first <= line <= last:
                entry = at(line)
                entry.raise_to(level)
                if reason not in entry.reasons:
                    entry.reasons.append(reason)
        functions.append(
            {
                "name": view.current.name,
                "current": view.state == "current",
                "lines": [lines[key].to_json() for key in sorted(lines)],
            }
        )
    return functions
