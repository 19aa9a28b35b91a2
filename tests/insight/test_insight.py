"""Surprises, type-instability hints and the parallel report, from real analyses of corpus files, down
to what the editor shows (inlay hint and hover on the loop line, Hint diagnostics behind the setting)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import FileResult
from pyserver.analysis.worker.report.insight import type_hints
from pyserver.lsp import convert, hover, inlay
from pyserver.lsp.settings import Settings, parse_settings
from pyserver.lsp.views import AnalysedDocument

CORPUS = Path(__file__).parent / "corpus"


def analyse(engine: AnalysisEngine, name: str) -> tuple[FileResult, str]:
    target = Path(engine.workspace_root) / name
    shutil.copy(CORPUS / name, target)
    source = target.read_text(encoding="utf-8")
    return engine.analyze(target, source), source


def covered(source: str, diagnostic) -> str:  # type: ignore[no-untyped-def]
    start, end = diagnostic.range.start, diagnostic.range.end
    return source.splitlines()[start.line][start.character : end.character]


def test_surprises_are_warned_on_their_expressions(insight_engine: AnalysisEngine) -> None:
    result, source = analyse(insight_engine, "surprises.py")
    found = {(d.code, d.range.start.line + 1, covered(source, d)) for d in result.diagnostics}
    assert found == {
        ("float-format", 8, 'f"value {x}"'),
        ("bool-invert", 15, "~flag"),
        ("frozen-global", 20, "SCALE"),
    }
    assert all(d.severity == "warning" for d in result.diagnostics)
    float_format = next(d for d in result.diagnostics if d.code == "float-format")
    assert "<object type:float64>" in float_format.message


def test_surprise_free_version_has_no_warning(insight_engine: AnalysisEngine) -> None:
    result, _source = analyse(insight_engine, "surprises_fixed.py")
    assert result.diagnostics == []
    assert all(s.ok for f in result.functions for s in f.signatures)
    unset = next(f for f in result.functions if f.name == "unset")
    assert [s.text.split(" ->")[0] for s in unset.signatures] == ["(array(bool, 1d, C), int64)"]


def test_type_hints_name_the_variable_and_reason(insight_engine: AnalysisEngine) -> None:
    result, source = analyse(insight_engine, "type_hints.py")
    hints = type_hints(result, source)
    found = {(d.code, d.range.start.line + 1, covered(source, d)) for d in hints}
    assert found == {
        ("type-promotion", 6, "total"),
        ("type-layout", 8, "a"),
        ("type-optional", 12, "found"),
    }
    assert all(d.severity == "hint" and d.function == "accumulate" for d in hints)
    promotion = next(d for d in hints if d.code == "type-promotion")
    assert "starts as an integer (0)" in promotion.message and "float64" in promotion.message
    assert not any(d.code.startswith("type-") for d in result.diagnostics)  # never in the plain analysis


def test_type_hints_are_published_only_with_the_setting(insight_engine: AnalysisEngine) -> None:
    result, source = analyse(insight_engine, "type_hints.py")
    assert Settings().type_hints is False
    assert parse_settings({"typeHints": True}).type_hints is True
    document = AnalysedDocument("file:///x.py", result.path, source, 1, result)
    ranges = convert.RangeConverter(lambda _path: source)
    published = convert.type_hint_diagnostics(document, {}, ranges)
    assert {d.code for d in published} == {"type-promotion", "type-layout", "type-optional"}
    assert all(d.data["why"] and d.data["fix"] for d in published)  # type: ignore[index]
    switched_off = convert.type_hint_diagnostics(document, {"type-layout": "off"}, ranges)
    assert {d.code for d in switched_off} == {"type-promotion", "type-optional"}


@pytest.fixture(scope="module")
def parallel_result(insight_engine: AnalysisEngine) -> tuple[FileResult, str]:
    return analyse(insight_engine, "parallel.py")


def test_parallel_report_from_the_parfor_pass(parallel_result: tuple[FileResult, str]) -> None:
    result, _source = parallel_result
    [signature] = result.functions[0].signatures
    by_line = {loop.line: loop for loop in signature.parallel_loops}
    assert by_line[7].parallel and by_line[7].what == "array expression ((a * 2.0) + 1.0)"
    assert by_line[7].fused == ["line 8: array expression (sqrt(c))", "line 10: prange loop"]
    assert by_line[10].parallel and by_line[10].notes == ["fused into the parallel region of line 7"]
    assert by_line[12].parallel and "line 13: prange loop runs serially" in by_line[12].notes[0]
    assert not by_line[13].parallel and "nested in the parallel region of line 12" in by_line[13].notes[0]
    assert not by_line[15].parallel and "use numba.prange" in by_line[15].notes[0]
    assert by_line[17].parallel and by_line[17].what == "np.sum"
    assert [d.code for d in result.diagnostics] == []  # no performance warning: it did parallelise


def test_parallel_report_in_the_editor(parallel_result: tuple[FileResult, str]) -> None:
    result, source = parallel_result
    document = AnalysedDocument("file:///p.py", result.path, source, 1, result)
    hints = inlay.inlay_hints(
        source, document, 0, 30, variable_types=False, return_types=False, max_length=30
    )
    labels = {hint.line + 1: hint.label.strip() for hint in hints if hint.kind == "parallel"}
    assert labels[7] == "⇉ parallel region (+2 fused)"
    assert labels[13] == "⇉ serial" and labels[15] == "⇉ serial"
    lines = source.splitlines()
    loop_hint = next(h for h in hints if h.line + 1 == 15)
    assert loop_hint.col == len(lines[14].rstrip())  # at the end of the loop header
    context = hover.HoverContext(busy=False, trusted=True, load_failed="")
    answer = hover.hover(source, document, 12, 8, context, document)  # on `for` of line 13
    assert answer is not None and "**Serial**: prange loop" in answer.markdown
    assert "nested in the parallel region of line 12" in answer.markdown


def test_check_reports_type_hints_only_when_asked(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    shutil.copy(CORPUS / "type_hints.py", tmp_path / "m.py")
    command = [sys.executable, "-m", "pyserver", "check", str(tmp_path / "m.py"), "--root", str(tmp_path)]
    root = Path(__file__).parents[2]
    plain = subprocess.run(
        [*command, "--format", "json"], capture_output=True, text=True, cwd=root, timeout=120
    )
    asked = subprocess.run(
        [*command, "--format", "json", "--type-hints"], capture_output=True, text=True, cwd=root, timeout=120
    )
    assert plain.returncode == asked.returncode == 0  # hints are not errors
    assert json.loads(plain.stdout)["diagnostics"] == []
    hints = json.loads(asked.stdout)["diagnostics"]
    assert {d["code"] for d in hints} == {"type-promotion", "type-layout", "type-optional"}
    assert all(d["severity"] == "hint" and d["why"] and d["fix"] for d in hints)


def test_type_stability_view_colours_lines(insight_engine: AnalysisEngine) -> None:
    from pyserver.lsp.stability import type_stability

    result, source = analyse(insight_engine, "type_hints.py")
    document = AnalysedDocument("file:///t.py", result.path, source, 1, result)
    functions = {f["name"]: f for f in type_stability(source, document)}
    accumulate = {entry["line"] + 1: entry for entry in functions["accumulate"]["lines"]}
    assert accumulate[6]["level"] == "unstable" and "total: int64" in accumulate[6]["types"]
    assert any(reason.startswith("type-promotion") for reason in accumulate[6]["reasons"])
    assert accumulate[8]["level"] == "unstable"  # the 'A' array indexed in the loop
    assert accumulate[12]["level"] == "unstable"  # the Optional
    contiguous = functions["contiguous"]["lines"]
    assert contiguous and {entry["level"] for entry in contiguous} == {"stable"}
    assert functions["accumulate"]["current"] is True


def test_check_json_carries_the_parallel_report(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    shutil.copy(CORPUS / "parallel.py", tmp_path / "p.py")
    command = [sys.executable, "-m", "pyserver", "check", str(tmp_path / "p.py"), "--root", str(tmp_path)]
    found = subprocess.run(
        [*command, "--format", "json"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[2],
        timeout=120,
    )
    [signature] = json.loads(found.stdout)["functions"][0]["signatures"]
    loops = {loop["line"]: loop for loop in signature["parallel_loops"]}
    assert loops[7]["parallel"] and loops[7]["fused"] == [
        "line 8: array expression (sqrt(c))",
        "line 10: prange loop",
    ]
    assert loops[15] == {
        "line": 15,
        "parallel": False,
        "what": "range loop",
        "fused": [],
        "notes": [
            "runs serially: only prange loops become parallel (use numba.prange if the iterations are independent)"
        ],
    }


@pytest.mark.parametrize(
    ("name", "code", "line", "text"),
    [
        ("reflected.py", "type-reflected", 6, "reflected list(float64)"),
        ("mixed_tuple_index_broken.py", "type-mixed-tuple", 6, "indexed with a variable"),
    ],
)
def test_more_type_hints(insight_engine: AnalysisEngine, name: str, code: str, line: int, text: str) -> None:
    result, source = analyse(insight_engine, name)
    hints = [d for d in type_hints(result, source) if d.code == code]
    assert [d.range.start.line + 1 for d in hints] == [line]
    assert text in hints[0].message


def test_parallel_report_says_which_allocations_are_hoisted(insight_engine: AnalysisEngine) -> None:
    result, _source = analyse(insight_engine, "parallel_hoist.py")
    [signature] = result.functions[0].signatures
    region = next(loop for loop in signature.parallel_loops if loop.line == 8)
    assert region.parallel and region.what == "prange loop"
    assert region.notes == [
        "line 9: the allocation of 'tmp' is hoisted out of the loop (once per thread, not per iteration)",
        "line 10: the allocation of 'grow' stays in the loop (it depends on the iteration)",
    ]


def test_frozen_global_ignores_alternative_branches() -> None:
    import ast

    from pyserver.analysis.worker.report.insight import module_assignments

    source = (
        "import os\nif os.name == 'nt':\n    SEP = 1\nelse:\n    SEP = 2\n"
        "try:\n    import scipy\n    HAS = True\nexcept ImportError:\n    HAS = False\n"
        "SCALE = 1.0\nSCALE = 2.0\nfor k in range(3):\n    STEP = k\n"
        "def f():\n    global MODE\n    MODE = 1\nMODE = 0\n"
    )
    assigned, bound = module_assignments(ast.parse(source))
    changed = {name for name, lines in assigned.items() if len(lines) > 1}
    assert changed == {"SCALE", "STEP", "MODE"}  # not SEP or HAS: one value per run
    assert {"os", "scipy", "f"} <= bound


def test_module_assignments_of_an_edited_module_are_those_of_its_fresh_parse() -> None:
    """The statements an edit did not touch are the previous parse's nodes, whose part is kept: the
    result must be the one of a tree parsed from nothing."""
    import ast

    from pyserver.analysis.worker.load.incremental_parse import IncrementalParser
    from pyserver.analysis.worker.report.insight import module_assignments

    texts = [
        "import os\nSCALE = 1.0\ndef f():\n    global MODE\n    MODE = 1\nMODE = 0\nSCALE = 2.0\n",
        "import os\nSCALE = 1.0\ndef f():\n    global MODE\n    MODE = 2\nMODE = 0\nSCALE = 2.0\n",
        "import os\nSCALE = 1.0\nLIMIT = 3\ndef f():\n    global MODE\n    MODE = 2\nMODE = 0\nSCALE = 2.0\n",
        "import os, sys\nSCALE = 1.0\nLIMIT = 3\ndef f():\n    return 1\nMODE = 0\nSCALE = 2.0\n",
    ]
    parser = IncrementalParser()
    reused = []
    for text in texts:
        edited = parser.parse(text, "m.py")
        reused.append(parser.reused_statements)
        assert module_assignments(edited) == module_assignments(ast.parse(text)), text
    assert reused[1] and reused[2]  # those parses reused statements: their kept parts served
    assigned, bound = module_assignments(ast.parse(texts[-1]))
    assert assigned == {"SCALE": [2, 7], "LIMIT": [3], "MODE": [6]} and bound == {"os", "sys", "f"}


def test_no_promotion_hint_for_a_plain_reassignment(insight_engine: AnalysisEngine) -> None:
    result, source = analyse(insight_engine, "type_hints_reassigned.py")
    assert [d.code for d in type_hints(result, source)] == []
