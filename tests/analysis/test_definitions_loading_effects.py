"""Definitions-only loading never runs a statement for its effects: loops, prints, writes, bare calls,
calls of jitted functions, `parse_args()`, the `__main__` block. Every shape below writes a `<shape>.ran`
file if it runs; none may exist after `check` or after the language server's analysis. A name that the
jitted functions need but that only such a statement defines has no value: the functions that read it
are listed but not checked (no false error), the others are typed."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from pyserver.analysis.worker.load.toplevel_slice import slice_module

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "tests" / "lsp") not in sys.path:
    sys.path.append(str(ROOT / "tests" / "lsp"))  # the real pygls client harness

from lsp_session import start_session  # noqa: E402

SCRIPT = textwrap.dedent(
    """\
    import argparse
    import time

    import numpy as np
    from numba import njit


    def mark(shape):
        open(shape + ".ran", "a").write("ran")


    @njit
    def kern(k, a):
        return a.sum() * k


    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=4)
    args = parser.parse_args()
    SCALE = 2.0
    TOTAL = 0.0
    for n in [10, 20]:
        a = np.ones((n, n), dtype=np.float32)
        TOTAL += kern(3, a)
        open("for_loop.ran", "a").write("ran")
    STEPS = 0
    while STEPS < 3:
        STEPS += 1
        mark("while_loop")
    print("top level")
    mark("bare_call")
    SQUARES = [mark("comprehension") or i for i in range(3)]
    with open("with_block.ran", "w") as handle:
        WITH_VALUE = 1.0
    try:
        TRY_VALUE = kern(2, np.ones(2))
        mark("try_block")
    except Exception:
        TRY_VALUE = 0.0
    if SCALE > 1:
        IF_VALUE = 1.0
        mark("if_block")
    t0 = time.perf_counter()
    for _ in range(3):
        kern(1, np.ones(2))
        mark("timing_loop")
    ELAPSED = time.perf_counter() - t0
    RESULT = kern(1, np.ones(2))
    np.save("numpy_save.ran", np.ones(2))


    @njit
    def uses_scale(x: float):
        return x * SCALE


    @njit
    def uses_if(x: float):
        return x + IF_VALUE


    @njit
    def uses_elapsed(x: float):
        return x + ELAPSED


    @njit
    def uses_total(x: float):
        return x + TOTAL


    @njit
    def uses_steps(x: float):
        return x + STEPS


    @njit
    def uses_squares(i: int):
        return SQUARES[i]


    @njit
    def uses_with(x: float):
        return x + WITH_VALUE


    @njit
    def uses_try(x: float):
        return x + TRY_VALUE


    @njit
    def uses_args(x: float):
        return x + args.n


    @njit
    def uses_result(x: float):
        return x + RESULT


    if __name__ == "__main__":
        mark("main")
    """
)
TYPED = {"uses_scale", "uses_if", "uses_elapsed", "kern"}  # kern: from its calls, read, not run
WITHOUT_VALUE = {"TOTAL", "STEPS", "SQUARES", "WITH_VALUE", "TRY_VALUE", "args", "RESULT"}


def _no_shape_ran(root: Path) -> None:
    ran = sorted(p.name for p in root.iterdir() if ".ran" in p.name)
    assert ran == [], f"ran during the analysis: {ran}"


def test_the_slice_runs_no_statement_for_its_effects() -> None:
    sliced = slice_module(ast.parse(SCRIPT))
    kept = ast.unparse(sliced.tree)
    for dropped in (
        "parse_args",
        "for n in",
        "while",
        "print(",
        "mark('",
        "kern(3",
        "kern(2",
        "np.save",
        "with open",
    ):
        assert dropped not in kept, dropped
    for needed in ("SCALE = 2.0", "IF_VALUE = 1.0", "t0 = time.perf_counter()", "ELAPSED ="):
        assert needed in kept, needed
    assert set(sliced.unavailable) >= WITHOUT_VALUE
    reasons = {s.line: s.reason for s in sliced.skipped}
    assert "calls the jitted function `kern`" in reasons[22] and "`TOTAL`" in reasons[22]
    assert reasons[27].startswith("it is a `while` loop")
    assert "`.parse_args()`" in reasons[19] and "`args`" in reasons[19]


def test_a_module_imported_by_another_runs_no_statement_for_its_effects() -> None:
    # Every name it binds may be imported, wherever it is bound: still, none of these shapes runs.
    sliced = slice_module(ast.parse(SCRIPT), keep_assignments=True)
    kept = ast.unparse(sliced.tree)
    for dropped in ("parse_args", "for n in", "while", "print(", "mark('", "kern(3", "np.save", "with open"):
        assert dropped not in kept, dropped
    assert set(sliced.unavailable) >= WITHOUT_VALUE


def _check(root: Path, path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "pyserver", "check", "--format", "json", str(path)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout)


def test_check_runs_no_shape_and_reports_no_false_error(tmp_path: Path) -> None:
    path = tmp_path / "benchmark.py"
    path.write_text(SCRIPT)
    report = _check(tmp_path, path)
    _no_shape_ran(tmp_path)
    assert report["diagnostics"] == [], report["diagnostics"]
    (file_report,) = report["files"]
    assert file_report["status"] == "ok"
    typed = {f["name"] for f in report["functions"] if f["signatures"]}
    assert typed == TYPED
    reasons = " ".join(s["reason"] for s in file_report["skipped"])
    assert "`TOTAL` (needed by the jitted functions) has no value" in reasons


async def test_the_language_server_runs_no_shape(tmp_path: Path) -> None:
    path = tmp_path / "benchmark.py"
    path.write_text(SCRIPT)
    session = await start_session(tmp_path)
    try:
        await session.open(path.name)
        diagnostics = await session.save(path.name)
        _no_shape_ran(tmp_path)
        assert not [d for d in diagnostics if d.code == "analysis-failed"]
        assert [d for d in diagnostics if d.code == "not-run"]
    finally:
        await session.shutdown()


def test_definitions_still_run_and_a_jitclass_instance_does_not() -> None:
    source = textwrap.dedent(
        """\
        import numpy as np
        from numba import njit, float64
        from numba.experimental import jitclass


        @jitclass([("n", float64)])
        class Bag:
            def __init__(self, n):
                self.n = n


        BAG = Bag(3.0)
        TABLE = np.zeros(3)
        for i in range(3):
            TABLE[i] = i * 2.0
        with open(__file__) as handle:
            TEXT = handle.read()
            print(TEXT)


        def make(n):
            namespace = {}
            exec("def kernel(x):\\n    return x * %d" % n, namespace)
            return njit(namespace["kernel"])


        KERNEL = make(2)


        @njit
        def uses(x):
            return KERNEL(x) + TABLE[0] + len(TEXT) + BAG.n
        """
    )
    sliced = slice_module(ast.parse(source))
    kept = ast.unparse(sliced.tree)
    for needed in ("for i in range(3)", "TEXT = handle.read()", "KERNEL = make(2)"):
        assert needed in kept, needed
    assert "print(" not in kept and "BAG = Bag" not in kept
    assert set(sliced.unavailable) == {"BAG"}
