"""Types at first sight, proven on a corpus: every signature found statically from the scripts' own
Python calls (source "python-caller", nothing run) must be one the scripts really compile.

The corpus (scripts/, written in the styles real Numba users write: tutorials, simulations, image
filters, `__main__` blocks, test files, top-level work, helpers passing arrays along) is checked with
no recorded signatures while the same scripts run once under `python -m pyserver record` (in parallel:
the analysis runs in its own worker process). A static signature that was never recorded is a wrong
type, unless none of its calls ran (those are listed). Then the count of functions typed at first
sight against those that compiled is printed.

Also on pynndescent (a Numba-heavy library, a test dependency): how many of its jitted functions get
types from its own code and tests alone, without any recording.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pyserver.analysis.engine import AnalysisEngine
from pyserver.analysis.model import FileResult

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.timeout(900)


def _static(root: Path, files: list[Path]) -> dict[str, FileResult]:
    empty = root / "no-signatures.json"
    empty.write_text(json.dumps({"version": 1, "functions": {}}))
    engine = AnalysisEngine(root, timeout_s=300.0, signature_files=[str(empty)])
    try:
        return {path.relative_to(root).as_posix(): engine.analyze(path) for path in files}
    finally:
        engine.close()


def _report(capsys: pytest.CaptureFixture[str], text: str) -> None:
    with capsys.disabled():
        print(f"\n[first sight] {text}")


def test_every_signature_found_at_first_sight_is_one_that_compiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(HERE / "scripts", tmp_path / "scripts")
    scripts = sorted((tmp_path / "scripts").glob("*.py"))
    assert len(scripts) >= 25
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS="1")
    env.pop("NUMBA_CACHE_DIR", None)
    started = time.perf_counter()
    recording = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pyserver",
            "record",
            "--",
            sys.executable,
            str(HERE / "run_scripts.py"),
            "scripts",
            "lines.json",
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        results = _static(tmp_path, scripts)
        static_seconds = time.perf_counter() - started
        _out, err = recording.communicate(timeout=600)
    finally:
        if recording.poll() is None:
            recording.kill()
            recording.wait()
    assert recording.returncode == 0, err[-3000:]
    run = json.loads((tmp_path / "lines.json").read_text())
    assert run["failures"] == [], run["failures"]
    recorded_data = json.loads((tmp_path / ".numba-lens" / "signatures.json").read_text())
    recorded = {
        key: {tuple(entry["args"]) for entry in entries}
        for key, entries in recorded_data["functions"].items()
    }
    ran = {os.path.realpath(path): set(lines) for path, lines in run["ran"].items()}

    wrong: list[str] = []
    never_ran: list[str] = []
    matched = 0
    typed: set[str] = set()
    for relative, result in results.items():
        assert result.status == "ok", (relative, result.diagnostics)
        for function in result.functions:
            key = f"{relative}::{function.name}"
            for signature in function.signatures:
                # Python callers, and jitted callers typed through them: nothing was recorded or declared.
                assert signature.source in ("python-caller", "caller"), (key, signature.source)
                args = tuple(signature.args)
                calls = [f"{Path(c.path).name}:{c.line}" for c in signature.callers]
                if args in recorded.get(key, set()):
                    matched += 1
                    typed.add(key)
                elif any(c.line in ran.get(os.path.realpath(c.path), set()) for c in signature.callers):
                    wrong.append(f"{key} {args} from {calls}: never compiled although its call ran")
                else:
                    never_ran.append(f"{key} {args} from {calls}")
    compiled = set(recorded)
    _report(
        capsys,
        f"{len(typed)} of {len(compiled)} functions that compile when the {len(scripts)} scripts run are "
        f"typed at first sight ({matched} signatures, all recorded; {len(wrong)} wrong); "
        f"static analysis {static_seconds:.1f} s in parallel with the recording run",
    )
    for line in never_ran:
        _report(capsys, f"found statically, but its call never ran: {line}")
    assert wrong == []
    assert typed <= compiled
    # The styles this corpus holds are typed at first sight: losing most of them is a regression.
    assert len(typed) >= len(compiled) * 0.6, sorted(compiled - typed)


def test_pynndescent_typed_from_its_own_code_and_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = importlib.util.find_spec("pynndescent")
    assert spec is not None and spec.origin, "pynndescent is a test dependency: pip install -e '.[dev]'"
    shutil.copytree(
        Path(spec.origin).parent, tmp_path / "pynndescent", ignore=shutil.ignore_patterns("__pycache__")
    )
    files = sorted(p for p in (tmp_path / "pynndescent").glob("*.py") if "@" in p.read_text(encoding="utf-8"))
    started = time.perf_counter()
    results = _static(tmp_path, files)
    seconds = time.perf_counter() - started
    jitted = [f for result in results.values() for f in result.functions]
    typed = [f for f in jitted if f.signatures]
    by_source: dict[str, int] = {}
    for function in typed:
        for source in sorted({s.source for s in function.signatures}):
            by_source[source] = by_source.get(source, 0) + 1
    from_calls = [f for f in typed if any(s.source in ("python-caller", "caller") for s in f.signatures)]
    _report(
        capsys,
        f"pynndescent: {len(typed)} of {len(jitted)} jitted functions typed from its own code alone, without "
        f"recording ({seconds:.0f} s); {len(from_calls)} of them from calls (Python callers, and jitted "
        f"callers typed through them); functions per source: {by_source}",
    )
    assert by_source.get("python-caller", 0) >= 1, "pynndescent's own Python calls type none of its functions"
