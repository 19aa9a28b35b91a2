"""Proof on code nobody here wrote: pynndescent (a Numba-heavy library from PyPI, a test-only dependency).

1. A copy of the installed package becomes the workspace (so its functions are workspace code and
   every compile is cold), and a small workload of its public API runs under `python -m pyserver
   record`. The same process writes Numba's own types for every overload it compiled (the compiled
   overload's typemap, what `inspect_types` prints): the truth, computed in this run.
2. `python -m pyserver check` checks the package with the recorded signatures: no error, and every
   recorded signature is typed.
3. For every variable of every recorded signature, the type Numba Lens keeps for hover (the engine's
   VariableType data) equals Numba's; the language server's hover shows the same on distances.py.
"""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from lsp_session import start_session

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import FileResult, FunctionInfo, SignatureResult
from pyserver.analysis.worker.discover.discovery import find_jitted_functions

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = Path(__file__).resolve().parent / "pynndescent_workload.py"
STEP_TIMEOUT_S = 1500  # a cold compile of the workload on a loaded 2-core machine
pytestmark = pytest.mark.timeout(3600)


@dataclass
class Corpus:
    root: Path
    signatures: dict[str, Any]
    truth: dict[str, dict[str, list[dict[str, Any]]]]
    check_json: dict[str, Any]
    check_exit: int
    results: dict[str, FileResult] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def _run(command: list[str], cwd: Path, what: str) -> subprocess.CompletedProcess[str]:
    python_path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH", ""), str(ROOT)) if p)
    env = dict(os.environ, NUMBA_NUM_THREADS="1", PYTHONPATH=python_path)
    env.pop("NUMBA_CACHE_DIR", None)
    completed = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT_S, check=False
    )
    assert completed.returncode in (0, 1), (
        f"{what} failed ({completed.returncode}):\n{completed.stderr[-4000:]}"
    )
    return completed


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    spec = importlib.util.find_spec("pynndescent")
    assert spec is not None and spec.origin, "pynndescent is a test dependency: pip install -e '.[dev]'"
    root = tmp_path_factory.mktemp("pynndescent_corpus")
    shutil.copytree(
        Path(spec.origin).parent, root / "pynndescent", ignore=shutil.ignore_patterns("__pycache__")
    )
    seconds: dict[str, float] = {}

    started = time.perf_counter()
    record = _run(
        [
            sys.executable,
            "-m",
            "pyserver",
            "record",
            "--",
            sys.executable,
            str(WORKLOAD),
            str(root),
            "truth.json",
        ],
        root,
        "the recorded workload",
    )
    assert record.returncode == 0, record.stderr[-4000:]
    seconds["record"] = time.perf_counter() - started

    started = time.perf_counter()
    check = _run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", "--timeout", "600", "pynndescent"],
        root,
        "check",
    )
    seconds["check"] = time.perf_counter() - started

    corpus = Corpus(
        root=root,
        signatures=json.loads((root / ".numba-lens" / "signatures.json").read_text()),
        truth=json.loads((root / "truth.json").read_text()),
        check_json=json.loads(check.stdout),
        check_exit=check.returncode,
        seconds=seconds,
    )
    # The engine API gives the variable types the hover shows (check's JSON leaves them out).
    started = time.perf_counter()
    engine = AnalysisEngine(root, timeout_s=600.0)
    try:
        for path in sorted((root / "pynndescent").glob("*.py")):
            if find_jitted_functions(path.read_text(encoding="utf-8"), str(path)):
                corpus.results[path.name] = engine.analyze(path)
    finally:
        engine.close()
    seconds["engine"] = time.perf_counter() - started
    return corpus


def _report(capsys: pytest.CaptureFixture[str], text: str) -> None:
    with capsys.disabled():
        print(f"\n[corpus] {text}")


def _signature_text(args: list[str]) -> str:
    return "(" + ", ".join(args) + ")"


def _recorded(corpus: Corpus) -> list[tuple[str, list[str]]]:
    """(function key, args) of every signature the workload compiled successfully."""
    return [
        (key, entry["args"])
        for key, entries in sorted(corpus.signatures["functions"].items())
        for entry in entries
        if entry.get("ok", True)
    ]


def _functions(corpus: Corpus) -> dict[str, FunctionInfo]:
    return {
        f"pynndescent/{name}::{function.name}": function
        for name, result in corpus.results.items()
        for function in result.functions
    }


def test_the_workload_was_recorded(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    recorded = _recorded(corpus)
    failed = [(k, e["args"]) for k, v in corpus.signatures["functions"].items() for e in v if not e["ok"]]
    assert failed == [], "pynndescent's own functions compile: no recorded compile may have failed"
    assert len({key for key, _ in recorded}) >= 60, "the workload should compile most distance functions"
    # Everything recorded is pynndescent code (nothing from Numba, numpy or exec'd strings).
    outside = [key for key, _ in recorded if not key.startswith("pynndescent/")]
    _report(
        capsys,
        f"recorded {len(recorded)} signatures of {len({k for k, _ in recorded})} functions in "
        f"{corpus.seconds['record']:.0f} s; check {corpus.seconds['check']:.0f} s; "
        f"engine {corpus.seconds['engine']:.0f} s; not storable: {len(corpus.signatures['notes'])}",
    )
    for note in corpus.signatures["notes"]:
        _report(capsys, f"not recorded (cannot be stored exactly, so not compared): {note[:160]}")
    assert outside == [], f"recorded functions that are not workspace code: {outside}"


def test_check_reports_no_false_error(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    diagnostics = corpus.check_json["diagnostics"]
    errors = [d for d in diagnostics if d["severity"] == "error"]
    assert errors == [], "pynndescent runs; any error is a false one:\n" + "\n".join(
        f"{d['path']}:{d['range']['start']['line'] + 1}: [{d['code']}] {d['message'][:300]}" for d in errors
    )
    assert corpus.check_exit == 0
    warnings = [d for d in diagnostics if d["severity"] == "warning"]
    typed = [f for f in corpus.check_json["functions"] if f["signatures"]]
    _report(
        capsys,
        f"check: {len(corpus.check_json['functions'])} jitted functions, {len(typed)} type-checked, "
        f"0 errors, {len(warnings)} warnings",
    )
    # The engine run agrees.
    engine_errors = [d for r in corpus.results.values() for d in r.diagnostics if d.severity == "error"]
    assert engine_errors == []


def test_every_recorded_signature_is_typed(corpus: Corpus) -> None:
    by_key = {f"{f['path']}::{f['name']}": f for f in corpus.check_json["functions"]}
    untyped = []
    for key, args in _recorded(corpus):
        function = by_key.get(key)
        signatures = [s for s in (function or {}).get("signatures", []) if s["args"] == args]
        if not signatures or not signatures[0]["ok"] or signatures[0]["mode"] != "nopython":
            untyped.append((key, _signature_text(args), signatures))
    assert untyped == []


# --- variable types: Numba Lens vs Numba ----------------------------------------------------------
def _base(ssa_name: str) -> str:
    """The source name of an SSA version: `x`, `x.1` and Numba's re-versioned `x.1.2` are all `x`."""
    return re.sub(r"(\.\d+)+$", "", ssa_name)


_trees: dict[str, ast.Module] = {}


def _function_node(function: FunctionInfo) -> ast.FunctionDef:
    tree = _trees.get(function.path)
    if tree is None:
        tree = _trees[function.path] = ast.parse(Path(function.path).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.lineno == function.line:
            return node
    raise AssertionError(f"no def of {function.name} at line {function.line}")


def _source_locals(node: ast.FunctionDef) -> set[str]:
    """The variables of the function as written: parameters and assigned names. Numba's typemap also
    holds its own temporaries ($-names) and the variables of inlined callees and overloads; those
    are not variables a user can hover."""
    arguments = node.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def _display(numba_variable: dict[str, Any]) -> str:
    """How the hover shows a Numba type: literals as `int64 (literal 1)`."""
    match = re.match(r"^Literal\[\w+\]\((?P<value>.*)\)$", numba_variable["type"])
    return f"{numba_variable['plain']} (literal {match.group('value')})" if match else numba_variable["type"]


def _shown(variable: Any) -> str:
    match = re.match(r"^Literal\[\w+\]\((?P<value>.*)\)$", variable.literal or "")
    return (
        f"{variable.type} (literal {match.group('value')})" if match else (variable.literal or variable.type)
    )


@dataclass
class Comparison:
    functions: set[str] = field(default_factory=set)
    variables: int = 0
    wrong: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    missing: list[tuple[str, str, str, str]] = field(default_factory=list)
    not_in_numba: list[tuple[str, str, str, str]] = field(default_factory=list)
    moved_into_parfors: list[tuple[str, str, str]] = field(default_factory=list)


def _signature(function: FunctionInfo, args: list[str]) -> SignatureResult:
    matches = [s for s in function.signatures if s.args == args]
    assert matches, f"{function.name}{_signature_text(args)} was not analysed"
    return matches[0]


def compare_variables(corpus: Corpus) -> Comparison:
    functions = _functions(corpus)
    comparison = Comparison()
    for key, args in _recorded(corpus):
        function = functions[key]
        signature = _signature(function, args)
        text = _signature_text(args)
        numba_variables = corpus.truth.get(key, {}).get(text)
        assert numba_variables is not None, f"no compiled overload of {key}{text} in this run"
        names = _source_locals(_function_node(function))
        numba = {v["ssa_name"]: v for v in numba_variables if _base(v["ssa_name"]) in names and v["line"]}
        lens = {v.ssa_name: v for v in signature.variables if v.name in names}
        comparison.functions.add(key)
        for ssa_name, expected in numba.items():
            shown = lens.get(ssa_name)
            if shown is None:
                comparison.missing.append((key, text, ssa_name, expected["type"]))
                continue
            comparison.variables += 1
            if _shown(shown) != _display(expected):
                comparison.wrong.append((key, text, ssa_name, _shown(shown), _display(expected)))
        for ssa_name, shown in lens.items():
            if ssa_name in numba:
                continue
            if function.options.get("parallel"):
                # Numba's ParforPass replaces a prange loop's index with its own: the compiled
                # overload no longer has the user's variable, so there is nothing to compare with.
                comparison.moved_into_parfors.append((key, ssa_name, shown.type))
            else:
                comparison.not_in_numba.append((key, text, ssa_name, shown.type))
    return comparison


def test_variable_types_equal_numbas(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    comparison = compare_variables(corpus)
    _report(
        capsys,
        f"variables compared with Numba's compiled typemap: {comparison.variables} in "
        f"{len(comparison.functions)} functions ({len(_recorded(corpus))} signatures); "
        f"{len(comparison.wrong)} differ",
    )
    for key, ssa_name, shown in comparison.moved_into_parfors:
        _report(
            capsys, f"not comparable (parallel=True, moved into a parfor by Numba): {key} {ssa_name}: {shown}"
        )
    assert comparison.variables >= 1000
    assert comparison.missing == [], "variables Numba types that Numba Lens does not show"
    assert comparison.wrong == [], "types that differ from Numba's:\n" + "\n".join(
        f"{key}{text}: {name}: shown {shown}, Numba {expected}"
        for key, text, name, shown, expected in comparison.wrong
    )


# --- the same through the language server's hover ---------------------------------------------------
def _occurrences(node: ast.FunctionDef) -> list[tuple[str, str, int, int]]:
    """(name, role, 1-based line, column) of every parameter and assigned name in the function."""
    arguments = node.args
    found = [(a.arg, "param", a.lineno, a.col_offset) for a in arguments.posonlyargs + arguments.args]
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            found.append((sub.id, "store", sub.lineno, sub.col_offset))
    return found


def _hover_rows(markdown: str, name: str) -> list[str]:
    block = markdown.split("```python\n", 1)[1].split("\n```", 1)[0]
    return [line[len(name) + 2 :] for line in block.splitlines() if line.startswith(f"{name}: ")]


def _row_types(row: str) -> set[str]:
    text = row.split("  # ", 1)[0].replace("  (depends on the path that reaches this line)", "")
    return set(text.split(" | "))


def test_lsp_hover_shows_numbas_types_in_distances(
    corpus: Corpus, capsys: pytest.CaptureFixture[str]
) -> None:
    functions = _functions(corpus)
    recorded_keys = sorted(
        {key for key, _ in _recorded(corpus) if key.startswith("pynndescent/distances.py::")}
    )
    assert len(recorded_keys) >= 25
    checked = 0
    wrong: list[str] = []

    async def drive() -> None:
        nonlocal checked
        session = await start_session(corpus.root, settings={"timeout": 600})
        try:
            diagnostics = await session.open("pynndescent/distances.py")
            assert [d for d in diagnostics if d.severity == 1] == []
            for key in recorded_keys:
                function = functions[key]
                signatures = function.signatures
                for name, role, line, column in _occurrences(_function_node(function)):
                    markdown = await session.hover("pynndescent/distances.py", line - 1, column)
                    assert markdown is not None, f"{key}: no hover on {name} at line {line}"
                    rows = _hover_rows(markdown, name)
                    assert len(rows) == len(signatures), (key, name, line, markdown)
                    for row, signature in zip(rows, signatures, strict=True):
                        truth = corpus.truth[key].get(_signature_text(signature.args))
                        if truth is None:
                            continue  # a signature from a caller, never compiled on its own
                        expected = {
                            _display(v)
                            for v in truth
                            if _base(v["ssa_name"]) == name
                            and (v["is_arg"] if role == "param" else (v["line"] == line and not v["is_arg"]))
                        }
                        if not expected:
                            continue  # Numba dropped the store (dead code): nothing to compare with
                        checked += 1
                        if _row_types(row) != expected:
                            wrong.append(f"{key} line {line} {name}: hover {row!r}, Numba {sorted(expected)}")
        finally:
            await session.shutdown()

    asyncio.run(drive())
    _report(capsys, f"LSP hovers on distances.py compared with Numba: {checked}, {len(wrong)} differ")
    assert checked >= 300
    assert wrong == []


def test_no_variable_versions_that_numba_does_not_have(corpus: Corpus) -> None:
    # Re-versioned names such as rp_trees.py's n_right.1.2 are Numba's own (a variable re-assigned on
    # the function's backbone, then in a loop): they are compared like any other version.
    comparison = compare_variables(corpus)
    assert comparison.not_in_numba == [], "variables Numba Lens shows that Numba does not have"
