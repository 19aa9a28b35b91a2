"""Definitions-only loading: a module's top level runs only as far as defining its jitted
functions needs. A script that writes, sleeps, spawns and deletes at top level does none of it when it is
checked by the CLI or saved in the editor, and its jitted functions that read top-level constants are still
typed."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from pyserver.analysis.worker.load.toplevel_slice import slice_module

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "tests" / "lsp") not in sys.path:
    sys.path.append(str(ROOT / "tests" / "lsp"))  # the real pygls client harness

from lsp_session import start_session  # noqa: E402

# Every side effect leaves a trace in the workspace: a file written, a file deleted, a process spawned
# (which writes its own file), and a 60-s sleep (longer than the 20-s time-out: had it run, the result
# would be an analysis-failed time-out, not typed functions).
SIDE_EFFECTS = textwrap.dedent(
    """\
    import os
    import subprocess
    import sys
    import time

    import numpy as np
    from numba import njit

    FACTOR = 2.5
    TABLE = np.arange(4.0) * FACTOR

    with open("written.txt", "w") as handle:
        handle.write("the top level ran")
    time.sleep(60)
    subprocess.Popen([sys.executable, "-c", "open('spawned.txt', 'w').write('spawned')"])
    os.remove("victim.txt")
    print("top level done")


    @njit
    def scale(x: float):
        return x * FACTOR


    @njit("float64(int64)")
    def lookup(i):
        return TABLE[i]


    if __name__ == "__main__":
        open("main.txt", "w").write("main ran")
    """
)
EXPECTED_SKIPPED = [12, 14, 15, 16, 17, 30]  # with, sleep, Popen, remove, print, the __main__ block


def _workspace(root: Path) -> Path:
    (root / "victim.txt").write_text("must survive")
    path = root / "side_effects.py"
    path.write_text(SIDE_EFFECTS)
    return path


def _no_side_effect_happened(root: Path) -> None:
    time.sleep(1.0)  # a spawned process would have had time to write its file
    assert (root / "victim.txt").read_text() == "must survive"
    for trace in ("written.txt", "spawned.txt", "main.txt"):
        assert not (root / trace).exists(), f"{trace}: the top level ran"


def _check(root: Path, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", *args, str(root / "side_effects.py")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout)


def test_the_slice_keeps_definitions_and_what_they_read_and_nothing_else() -> None:
    sliced = slice_module(ast.parse(SIDE_EFFECTS))
    kept = ast.unparse(sliced.tree)
    assert "FACTOR = 2.5" in kept and "TABLE = np.arange(4.0) * FACTOR" in kept
    assert "def scale" in kept and "def lookup" in kept
    for dropped in ("open(", "sleep", "Popen", "remove", "print", "__main__"):
        assert dropped not in kept
    assert [s.line for s in sliced.skipped] == EXPECTED_SKIPPED
    assert sliced.skipped[0].reason == "a `with` block that defines nothing the jitted functions need"
    assert sliced.skipped[-1].end_line == 31


def test_check_runs_no_side_effect_and_still_types_the_functions(tmp_path: Path) -> None:
    _workspace(tmp_path)
    report = _check(tmp_path)
    _no_side_effect_happened(tmp_path)
    assert not [d for d in report["diagnostics"] if d["code"] == "analysis-failed"], report["diagnostics"]
    (file_report,) = report["files"]
    assert file_report["loading"] == "definitions" and file_report["status"] == "ok"
    assert file_report["skipped_count"] == len(EXPECTED_SKIPPED)
    assert [s["line"] for s in file_report["skipped"]] == EXPECTED_SKIPPED
    typed = {
        f["name"]: [(s["args"], s["return_type"], s["source"]) for s in f["signatures"]]
        for f in report["functions"]
    }
    assert typed["scale"] == [(["float64"], "float64", "annotation")]
    assert typed["lookup"] == [(["int64"], "float64", "decorator")]


def test_check_loading_full_runs_the_top_level(tmp_path: Path) -> None:
    # The same module without the sleep, the spawn and the deletion: `--loading full` runs its top level.
    (tmp_path / "side_effects.py").write_text(
        "\n".join(
            line for line in SIDE_EFFECTS.splitlines() if not line.startswith(("time.", "subprocess.", "os."))
        )
    )
    report = _check(tmp_path, "--loading", "full")
    assert (tmp_path / "written.txt").read_text() == "the top level ran"
    assert not (tmp_path / "main.txt").exists()  # never the `__main__` block
    (file_report,) = report["files"]
    assert file_report["loading"] == "full" and file_report["skipped"] == []


async def test_saving_in_the_editor_runs_no_side_effect_and_fades_what_did_not_run(tmp_path: Path) -> None:
    path = _workspace(tmp_path)
    session = await start_session(tmp_path)
    try:
        await session.open(path.name)
        diagnostics = await session.save(path.name)
        _no_side_effect_happened(tmp_path)
        assert not [d for d in diagnostics if d.code == "analysis-failed"]
        hints = [d for d in diagnostics if d.code == "not-run"]
        # every skipped statement but the `__main__` block (never run in any mode) is faded
        assert [d.range.start.line + 1 for d in hints] == EXPECTED_SKIPPED[:-1]
        for hint in hints:
            assert hint.severity == 4 and list(hint.tags or []) == [1]  # Hint, Unnecessary
            assert hint.message.startswith("Not run by Numba Lens's analysis: ")
        assert hints[0].range.end.line + 1 == 13  # the whole `with` block
        hover = await session.hover_word(path.name, 21, "scale")
        assert hover is not None and "float64" in hover
    finally:
        await session.shutdown()


# A hang that no rule can see before running (a busy loop inside a function: a `time.sleep` would be
# seen as an effect, and the statement would not run at all).
HANGS_WHERE_NEEDED = textwrap.dedent(
    """\
    import time
    from numba import njit
    def compute():
        while time.time() > 0: pass
        return 3.0
    SCALE = compute()
    @njit
    def f(x: float):
        return x * 2.0
    @njit
    def g(x: float):
        return x * SCALE
    """
)


def test_a_needed_statement_that_hangs_times_out_once_and_is_left_out_of_the_retry(tmp_path: Path) -> None:
    from pyserver.analysis.engine import AnalysisEngine

    path = tmp_path / "hangs_where_needed.py"
    path.write_text(HANGS_WHERE_NEEDED)
    engine = AnalysisEngine(tmp_path, timeout_s=3.0)
    try:
        result = engine.analyze(path)
        again = engine.analyze(path)  # remembered: straight to the retry, no second time-out
    finally:
        engine.close()
    for outcome in (result, again):
        failure = outcome.diagnostics[0]
        assert failure.code == "analysis-failed" and "time-out after 3 s at line 4" in failure.message
        assert "only the top-level statements that defining its jitted functions needs run" in failure.message
        assert outcome.status == "failed"  # g could not be checked: the module did not load for it
        assert [(s.line, s.reason) for s in outcome.skipped] == [
            (6, "it did not finish when it last ran (a time-out or a crash)")
        ]
        typed = {
            function.name: [s.return_type for s in function.signatures] for function in outcome.functions
        }
        assert typed == {"f": ["float64"], "g": []}  # g reads SCALE, which never got a value: not checked
        assert [d.code for d in outcome.diagnostics] == ["analysis-failed"]


def test_environment_set_up_jit_builders_and_globals_set_by_a_call_run() -> None:
    source = textwrap.dedent(
        """\
        import os, sys, warnings
        sys.path.insert(0, os.path.dirname(__file__))
        os.environ["NUMBA_OPT"] = "0"
        warnings.filterwarnings("ignore")
        import numba
        import numpy as np
        from numba import guvectorize
        numba.config.BOUNDSCHECK = 1
        TABLE = None
        def init():
            global TABLE
            TABLE = np.arange(10.0)
        init()
        def step_py(a):
            return a + LIMIT
        LIMIT = 7
        step = numba.njit(step_py, fastmath=True)
        def gu(a, out):
            out[0] = a[0]
        kernel = guvectorize(["void(float64[:], float64[:])"], "(n)->()")(gu)
        result = numba.njit(step_py)(np.ones(3))
        SPEC = []
        SPEC.append(("x", numba.float64))
        @numba.experimental.jitclass(SPEC)
        class Point:
            def __init__(self, x):
                self.x = x
        @numba.njit
        def f(i):
            return TABLE[i]
        try:
            import scipy
        except ImportError:
            scipy = None
        """
    )
    sliced = slice_module(ast.parse(source))
    kept = ast.unparse(sliced.tree)
    for needed in (
        "sys.path.insert(0",
        "os.environ['NUMBA_OPT'] = '0'",
        "warnings.filterwarnings('ignore')",
        "numba.config.BOUNDSCHECK = 1",
        "init()",  # sets TABLE, which f reads
        "LIMIT = 7",  # read by step_py, which a jit builder takes
        "step = numba.njit(step_py, fastmath=True)",
        "kernel = guvectorize(",
        "SPEC.append(",  # the jitclass spec, changed after its assignment
        "import scipy",
    ):
        assert needed in kept, needed
    # calling a jitted function is not defining one; nothing reads scipy, so the handler does not run
    assert [(s.line, s.reason) for s in sliced.skipped] == [
        (21, "an assignment that no jitted function, decorator or definition reads"),
        (34, "an assignment that no jitted function, decorator or definition reads"),
    ]


def test_a_module_analysed_first_is_imported_whole_by_the_next(tmp_path: Path) -> None:
    # `check` analyses consts.py (its slice leaves out KIND = 2: no jitted function of its own reads it),
    # then user.py, which imports KIND from it: that import gets the module's assignments, not the slice.
    from pyserver.analysis.engine import AnalysisEngine

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "consts.py").write_text(
        "from numba import njit\nKIND = 2\n\n@njit\ndef twice(x: float):\n    return 2.0 * x\n"
    )
    (tmp_path / "pkg" / "user.py").write_text(
        "from numba import njit\nfrom pkg.consts import KIND, twice\n\n@njit\ndef f(x: float):\n"
        "    return twice(x) + KIND\n"
    )
    engine = AnalysisEngine(tmp_path, timeout_s=60.0)
    try:
        first = engine.analyze(tmp_path / "pkg" / "consts.py")
        second = engine.analyze(tmp_path / "pkg" / "user.py")
    finally:
        engine.close()
    assert [s.line for s in first.skipped] == [2]
    assert second.status == "ok" and second.diagnostics == [], second.diagnostics
    assert [s.return_type for s in second.functions[0].signatures] == ["float64"]
