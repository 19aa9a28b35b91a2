"""Each quick fix of an error class, verified on the real analysis: apply it to the broken corpus file,
check again, and that error is gone with no new one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import Diagnostic
from pyserver.analysis.worker.report.explain import explain_diagnostic
from pyserver.lsp.actions import Edit, quick_fixes

CORPUS = Path(__file__).parent / "corpus"


def lsp_data(diagnostic: Diagnostic) -> dict[str, Any]:
    """What the server puts in an LSP diagnostic's data (pyserver.lsp.convert.to_lsp)."""
    data = dict(diagnostic.data or {})
    explanation = explain_diagnostic(diagnostic)
    if explanation.kind:
        data["errorClass"] = explanation.kind
        data.update({k: v for k, v in explanation.data.items() if k not in data})
    return data


def apply(source: str, edits: list[Edit]) -> str:
    lines = source.splitlines(keepends=True)
    for edit in sorted(edits, key=lambda e: (e.line, e.col), reverse=True):
        start = sum(len(line) for line in lines[: edit.line]) + edit.col
        end = sum(len(line) for line in lines[: edit.end_line]) + edit.end_col
        text = "".join(lines)
        lines = (text[:start] + edit.new_text + text[end:]).splitlines(keepends=True)
    return "".join(lines)


def errors_of(engine: AnalysisEngine, path: Path, source: str) -> list[Diagnostic]:
    path.write_text(source, encoding="utf-8")
    result = engine.analyze(path, source)
    return [d for d in result.diagnostics if d.severity in ("error", "warning")]


@pytest.mark.parametrize(
    ("name", "kind", "expected_text"),
    [
        ("plain_function", "plain-function", "@njit\ndef helper"),
        ("linalg_int", "linalg-int", "np.linalg.inv(m.astype(np.float64))"),
        ("global_list", "global-container", "WEIGHTS = (1, 2, 3)"),
        ("empty_list", "empty-container", "[np.float64(x) for x in range(0)]"),
        ("empty_dict", "empty-container", "numba.typed.Dict.empty(key_type=numba.types.unicode_type"),
    ],
)
def test_quick_fix_makes_the_code_compile(
    insight_engine: AnalysisEngine, name: str, kind: str, expected_text: str
) -> None:
    path = Path(insight_engine.workspace_root) / f"fix_{name}.py"
    source = (CORPUS / f"{name}_broken.py").read_text(encoding="utf-8")
    before = errors_of(insight_engine, path, source)
    target = next(d for d in before if explain_diagnostic(d).kind == kind)
    fixes = quick_fixes(source, target.code, target.range.start.line + 1, lsp_data(target))
    assert fixes, f"no quick fix for {kind}"
    fixed = apply(source, fixes[0].edits)
    assert expected_text in fixed
    after = errors_of(insight_engine, path, fixed)
    assert after == [], [d.message for d in after]


def test_global_list_the_module_changes_gets_no_tuple_fix() -> None:
    source = "WEIGHTS = [1, 2]\nWEIGHTS.append(3)\n"
    data = {"errorClass": "global-container", "name": "WEIGHTS", "container": "list"}
    assert quick_fixes(source, "typing-error", 1, data) == []


def test_njit_fix_adds_the_import_when_missing() -> None:
    source = "import numba as nb\n\n\ndef helper(x):\n    return x\n"
    data = {"errorClass": "plain-function", "name": "helper"}
    fixed = apply(source, quick_fixes(source, "typing-error", 1, data)[0].edits)
    assert "@nb.njit\ndef helper" in fixed
