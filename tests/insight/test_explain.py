"""Each common Numba error class, from a real analysis of a broken file in corpus/: its own cause and
fix, no heap address in the text; and the paired fixed file checks clean (no error at all)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pyserver.analysis.codes import CODE_TABLE
from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.worker.report.explain import clean_text, explain, explain_diagnostic

CORPUS = Path(__file__).parent / "corpus"
ROOT = Path(__file__).parents[2]

# corpus name -> (error class, a phrase its fix must contain)
CLASSES = {
    "plain_function": ("plain-function", "@njit"),
    "linalg_int": ("linalg-int", "astype(np.float64)"),
    "numpy_keyword": ("numpy-keyword", "'kind'"),
    "attribute": ("attribute", "'tolist'"),
    "heterogeneous_list": ("heterogeneous-list", "one item type"),
    "heterogeneous_dict": ("heterogeneous-dict", "one value type"),
    "string_formatting": ("string-formatting", "format the text in Python"),
    "global_list": ("global-container", "WEIGHTS = (1, 2, 3)"),
    "global_dict": ("global-container", "argument"),
    "closure": ("closure", "argument"),
    "first_class_function": ("first-class-function", "own branch"),
    "unify_return": ("unify-return", "same type on every path"),
    "unify_variable": ("unify-variable", "same type on every path"),
    "empty_list": ("empty-container", "numba.typed.List.empty_list"),
    "empty_dict": ("empty-container", "numba.typed.Dict.empty"),
    "mixed_tuple_index": ("mixed-tuple-index", "constants"),
}


def analyse(engine: AnalysisEngine, name: str):  # type: ignore[no-untyped-def]
    target = Path(engine.workspace_root) / name
    shutil.copy(CORPUS / name, target)
    return engine.analyze(target)


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_error_class_has_its_cause_and_fix(insight_engine: AnalysisEngine, name: str) -> None:
    kind, phrase = CLASSES[name]
    result = analyse(insight_engine, f"{name}_broken.py")
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert errors, result.diagnostics
    explained = [(d, explain_diagnostic(d)) for d in errors]
    matching = [(d, e) for d, e in explained if e.kind == kind]
    assert matching, [(d.message, e.kind) for d, e in explained]
    diagnostic, explanation = matching[0]
    assert phrase in explanation.fix, explanation.fix
    generic = CODE_TABLE[diagnostic.code]
    assert explanation.why != generic.why  # its own cause, not the code's generic text
    for text in (diagnostic.message, diagnostic.fullMessage or "", explanation.why, explanation.fix):
        assert " at 0x" not in text


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_fixed_version_checks_clean(insight_engine: AnalysisEngine, name: str) -> None:
    result = analyse(insight_engine, f"{name}_fixed.py")
    assert result.status == "ok"
    assert [d for d in result.diagnostics if d.severity in ("error", "warning")] == []
    assert any(s.ok for f in result.functions for s in f.signatures), "the fixed file was type-checked"


def test_heap_addresses_are_removed() -> None:
    text = "No implementation of function Function(<function inv at 0x7f81200045e0>) found for signature"
    assert clean_text(text) == "No implementation of function np.linalg.inv found for signature"
    assert clean_text("<numba.core.foo object at 0xdeadbeef>") == "<numba.core.foo object>"


def test_operator_failures_are_not_taken_for_numpy_functions() -> None:
    text = "No implementation of function Function(<built-in function add>) found for signature:\n\n >>> add(int64, UniTuple(int64 x 1))\n"
    found = explain("typing-error", text)
    assert found.kind == "operator"
    assert "int64, UniTuple(int64 x 1)" in found.why


def test_unknown_text_gets_the_codes_generic_advice() -> None:
    for code, info in CODE_TABLE.items():
        found = explain(code, "something Numba Lens has never seen")
        assert (found.why, found.fix) == (info.why, info.fix)


def test_check_json_and_sarif_carry_why_and_fix(tmp_path: Path) -> None:
    shutil.copy(CORPUS / "linalg_int_broken.py", tmp_path / "m.py")
    command = [sys.executable, "-m", "pyserver", "check", str(tmp_path / "m.py"), "--root", str(tmp_path)]
    found = subprocess.run(
        [*command, "--format", "json"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    payload = json.loads(found.stdout)
    assert payload["diagnostics"]
    for diagnostic in payload["diagnostics"]:
        assert isinstance(diagnostic["why"], str) and diagnostic["why"]
        assert isinstance(diagnostic["fix"], str) and diagnostic["fix"]
    assert "astype(np.float64)" in payload["diagnostics"][0]["fix"]
    sarif = subprocess.run(
        [*command, "--format", "sarif"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    run = json.loads(sarif.stdout)["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert set(CODE_TABLE) <= set(rules)
    assert rules["typing-error"]["help"]["text"].startswith("Why: ")
    assert "Fix: " in rules["typing-error"]["help"]["text"]
    result = run["results"][0]
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert "astype(np.float64)" in result["properties"]["fix"]


def test_docs_list_every_code_with_its_why_and_fix() -> None:
    text = (ROOT / "docs" / "diagnostic-codes.md").read_text(encoding="utf-8")
    for code, info in CODE_TABLE.items():
        assert f"### `{code}`" in text, code
        assert info.why in text and info.fix in text and info.link in text, code


def test_editor_shows_why_and_fix(insight_engine: AnalysisEngine) -> None:
    from pyserver.lsp import convert, hover
    from pyserver.lsp.views import AnalysedDocument

    result = analyse(insight_engine, "linalg_int_broken.py")
    source = Path(result.path).read_text(encoding="utf-8")
    [diagnostic] = result.diagnostics
    published = convert.to_lsp(diagnostic, "error", convert.RangeConverter(lambda _path: source))
    assert published.data["errorClass"] == "linalg-int"  # type: ignore[index]
    assert "astype(np.float64)" in published.data["fix"] and "LAPACK" in published.data["why"]  # type: ignore[index]
    assert published.code_description is not None
    assert published.code_description.href == CODE_TABLE["typing-error"].link
    document = AnalysedDocument("file:///m.py", result.path, source, 1, result)
    start = diagnostic.range.start
    answer = hover.hover(source, document, start.line, start.character + 1, hover.HoverContext(), document)
    assert answer is not None
    assert "**Why (typing-error):**" in answer.markdown and "astype(np.float64)" in answer.markdown
