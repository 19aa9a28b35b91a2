"""Helpers shared by the analysis tests (imported as a plain module: pytest puts this folder on sys.path)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import Diagnostic, FileResult, FunctionInfo
from pyserver.analysis.worker.infer.analyzer import Analyzer

ROOT = Path(__file__).resolve().parents[2]


def check_json(root: Path, *paths: str) -> dict[str, Any]:
    """`python -m pyserver check --format json` of `paths` in `root`, as a user runs it (exit 0 or 1)."""
    done = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", *paths],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode in (0, 1), done.stderr + done.stdout
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def run_probe(root: Path, program: str) -> Any:
    """What a probe program prints as JSON, run with this interpreter in `root` (Numba's own answer)."""
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def write_package(root: Path, name: str, modules: dict[str, str]) -> None:
    """A package `name` under `root`: an empty `__init__.py` and these modules (file name -> text)."""
    package = root / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    for file_name, text in modules.items():
        (package / file_name).write_text(text)


def shown_args(report: dict[str, Any]) -> dict[str, list[list[str]]]:
    """Each function of a `check --format json` report: the argument types of its signatures."""
    return {f["name"]: [s["args"] for s in f["signatures"]] for f in report["functions"]}


def lowering_counter(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The qualified names of the functions Numba lowers (to machine code or object mode) from now on."""
    from numba.core import object_mode_passes, typed_passes

    lowered: list[str] = []
    for cls in (typed_passes.NativeLowering, object_mode_passes.ObjectModeBackEnd):
        original = cls.run_pass

        def run_pass(self: Any, state: Any, original: Any = original) -> Any:
            lowered.append(state.func_id.func_qualname)
            return original(self, state)

        monkeypatch.setattr(cls, "run_pass", run_pass)
    return lowered


def analysed_without_lowering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str
) -> tuple[Analyzer, Any, list[str]]:
    """The analysis of `source` (written to `name`), and the lowering passes that ran during it."""
    path = tmp_path / name
    path.write_text(source)
    cwd = os.getcwd()
    analyzer = Analyzer(tmp_path)
    lowered = lowering_counter(monkeypatch)
    try:
        result = analyzer.analyze(str(path), source)
    finally:
        os.chdir(cwd)
    return analyzer, result, lowered


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


def function_named(result: FileResult, name: str) -> FunctionInfo:
    """The jitted function `name` of an analysis result."""
    return next(f for f in result.functions if f.name == name)


def signatures_of(result: FileResult, name: str) -> list[tuple[str, tuple[str, ...]]]:
    """(source, argument types) of each signature of the jitted function `name`."""
    return [(s.source, tuple(s.args)) for s in function_named(result, name).signatures]


def first_argument_by_caller(
    ws: Workspace, name: str, cases: list[str], setup: list[str], truth_of: Callable[[str], str]
) -> tuple[dict[str, str], dict[str, str]]:
    """Each expression of `cases` passed to a one-parameter kernel `k` from a function of its own
    (`case_N`, after the `setup` lines): (caller -> the type found statically, caller -> `truth_of` the
    expression, the type its value really has)."""
    lines = ["import numpy as np", "from numba import njit", "", "@njit", "def k(x):", "    return 0", ""]
    truth: dict[str, str] = {}
    for number, expression in enumerate(cases):
        lines += [f"def case_{number}():", *(f"    {s}" for s in setup), f"    k({expression})", ""]
        truth[f"case_{number}"] = truth_of(expression)
    result = ws.analyze(name, "\n".join(lines) + "\n")
    found = {c.function: s.args[0] for s in function_named(result, "k").signatures for c in s.callers}
    return found, truth


def numpy_truth(setup: list[str]) -> Callable[[str], str]:
    """numba.typeof of the value an expression really has once the `setup` lines ran (NumPy as `np`):
    the truth first_argument_by_caller compares with."""
    import numba
    import numpy as np

    def truth_of(expression: str) -> str:
        namespace: dict[str, object] = {"np": np}
        for line in setup:
            exec(line, namespace)
        return str(numba.typeof(eval(expression, namespace)))

    return truth_of


def first_arguments_against_numpy(
    ws: Workspace, name: str, cases: list[str], setup: list[str]
) -> tuple[dict[str, tuple[str, str]], list[str], dict[str, str]]:
    """first_argument_by_caller with numpy_truth: (caller -> (found, truth) where they differ, the
    expressions found nothing for, caller -> type found)."""
    found, truth = first_argument_by_caller(ws, name, cases, setup, numpy_truth(setup))
    wrong = {caller: (args, truth[caller]) for caller, args in found.items() if args != truth[caller]}
    missing = [
        cases[int(c.split("_")[1])]
        for c in sorted(set(truth) - set(found), key=lambda c: int(c.split("_")[1]))
    ]
    return wrong, missing, found
