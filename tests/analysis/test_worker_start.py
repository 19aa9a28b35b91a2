"""The worker starts whatever the workspace holds, and a worker that cannot start says why."""

from __future__ import annotations

import stat
import textwrap
from pathlib import Path

from pyserver.analysis.engine import AnalysisEngine


def test_workspace_files_named_like_stdlib_modules_do_not_stop_the_worker(tmp_path: Path) -> None:
    # typing.py / types.py / json.py at the root would shadow the stdlib if the root came first on
    # sys.path while the worker imports itself and Numba.
    for name in ("typing", "types", "json", "inspect"):
        (tmp_path / f"{name}.py").write_text("raise RuntimeError('the workspace copy was imported')\n")
    (tmp_path / "data.txt").write_text("3\n")
    module = tmp_path / "mod.py"
    module.write_text(
        textwrap.dedent(
            """
            import os
            from numba import njit

            STEP = int(open("data.txt").read())  # relative to the workspace root, as when run from there
            CWD = os.getcwd()

            @njit
            def f(x: int):
                return x + STEP
            """
        )
    )
    engine = AnalysisEngine(tmp_path, timeout_s=60.0)
    try:
        result = engine.analyze(module)
        assert result.status == "ok", [d.message for d in result.diagnostics]
        assert result.diagnostics == []
        (function,) = result.functions
        assert function.signatures[0].ok and function.signatures[0].return_type == "int64"
    finally:
        engine.close()


def test_a_worker_that_cannot_start_says_what_happened(tmp_path: Path) -> None:
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\necho 'fake interpreter: no numba here' >&2\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    module = tmp_path / "mod.py"
    module.write_text("from numba import njit\n\n@njit\ndef f(x: int):\n    return x\n")
    engine = AnalysisEngine(tmp_path, timeout_s=30.0, python=str(fake))
    try:
        result = engine.analyze(module)
        (failure,) = result.diagnostics
        assert failure.code == "analysis-failed"
        assert "did not start" in failure.message
        assert "exited with code 3" in failure.message and "no numba here" in failure.message
        assert str(fake) in failure.message
    finally:
        engine.close()


def test_a_relative_pythonpath_entry_still_means_the_workspace_root(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helpers_numba_lens.py").write_text("SCALE = 2\n")
    module = tmp_path / "mod.py"
    module.write_text(
        "from numba import njit\nfrom helpers_numba_lens import SCALE\n\n@njit\ndef f(x: int):\n    return x * SCALE\n"
    )
    monkeypatch.setenv("PYTHONPATH", "lib")
    engine = AnalysisEngine(tmp_path, timeout_s=60.0)
    try:
        result = engine.analyze(module)
        assert result.status == "ok" and result.diagnostics == [], [d.message for d in result.diagnostics]
    finally:
        engine.close()


def test_the_command_line_runs_in_a_workspace_with_a_typing_module(tmp_path: Path) -> None:
    # `python -m pyserver ...` started in the workspace (as `check` and the editor's server are) must not
    # import the workspace's typing.py in place of the standard one.
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    (tmp_path / "typing.py").write_text("raise RuntimeError('the workspace copy was imported')\n")
    (tmp_path / "mod.py").write_text("from numba import njit\n\n@njit\ndef f(x: int):\n    return x + 1\n")
    for args in (["check", "mod.py"], ["lsp", "--help"], ["record", "--help"]):
        proc = subprocess.run(
            [sys.executable, "-m", "pyserver", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        )
        assert proc.returncode == 0, (args, proc.stderr[-2000:])
