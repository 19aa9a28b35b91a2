"""Analysis speed against Numba's own compile of the same file, measured in the same run.

(a) First analysis of a 20-function file (worker already warm, as in the editor, where it starts with
    the server) against Numba's eager compile of that file in a fresh process.
(b) Re-analysis after a one-function edit against that same compile.

Numba's compile runs in a fresh subprocess each time, so no in-process cache flatters it; the time
counted is the import of the module (its eager `@njit("sig")` compiles), not the interpreter start or
`import numba`. The cold figure (worker start included) is printed too. Goals: (a) >= 8x, (b) >= 150x.
No asserts: this prints figures.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pyserver.analysis.engine import AnalysisEngine  # noqa: E402

FUNCTIONS = 20


def make_source(edit: int = 0) -> str:
    """20 jitted functions with explicit signatures; every third calls the one before it."""
    parts = ["import numpy as np", "from numba import njit", ""]
    for index in range(FUNCTIONS):
        scale = f"{index + 1}.0" if index != 0 else f"{1 + edit}.0"
        call = f"        total += f{index - 1}(a, i % 3)\n" if index % 3 == 2 else ""
        parts.append(
            textwrap.dedent(
                f"""
                @njit("float64(float64[:], int64)")
                def f{index}(a, n):
                    total = 0.0
                    for i in range(a.shape[0]):
                        x = a[i] * {scale}
                        if x > n:
                            total += x
                        else:
                            total -= x / (n + 1)
                        {call.strip() if call else "pass"}
                    m = np.empty_like(a)
                    for j in range(a.shape[0]):
                        m[j] = a[j] + total
                    return total + m.sum() + n
                """
            )
        )
    return "\n".join(parts)


COMPILE_SCRIPT = """
import sys, time, importlib.util
import numba  # not counted: the editor's worker has Numba imported too
spec = importlib.util.spec_from_file_location("bench_module", sys.argv[1])
module = importlib.util.module_from_spec(spec)
started = time.perf_counter()
spec.loader.exec_module(module)  # eager compiles of every @njit("signature")
print(time.perf_counter() - started)
"""


def numba_compile_seconds(path: Path) -> float:
    env = {"NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="numba-lens-bench-cache-"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", COMPILE_SCRIPT, str(path)], capture_output=True, text=True, check=True, env=env
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="numba-lens-bench-") as tmp:
        root = Path(tmp)
        path = root / "twenty.py"
        path.write_text(make_source())

        # Interleaved, so that both sides see the same machine load (the machine may be shared).
        compile_runs, first_runs, cold_runs = [], [], []
        engine = None
        for _run in range(3):
            compile_runs.append(numba_compile_seconds(path))
            if engine is not None:
                engine.close()
            started = time.perf_counter()
            engine = AnalysisEngine(root, timeout_s=120.0)
            engine.start()
            warm_at = time.perf_counter()
            result = engine.analyze(path)
            done = time.perf_counter()
            assert result.status == "ok" and len(result.inferred) == FUNCTIONS, result.diagnostics
            first_runs.append(done - warm_at)
            cold_runs.append(done - started)
        assert engine is not None
        compile_s = statistics.median(compile_runs)
        first_s = statistics.median(first_runs)
        cold_s = statistics.median(cold_runs)

        edit_runs = []
        for edit in range(1, 8):
            source = make_source(edit)
            started = time.perf_counter()
            result = engine.analyze(path, source)
            edit_runs.append(time.perf_counter() - started)
            # f0 changed; f2 calls f1 only, so only f0 is re-inferred.
            assert result.inferred == ["f0"], result.inferred
        engine.close()
        edit_s = statistics.median(edit_runs)

    print(
        f"Numba eager compile of {FUNCTIONS} functions (fresh process, median of 3): {compile_s * 1000:8.1f} ms"
    )
    print(
        f"  runs (s): compile {[round(x, 2) for x in compile_runs]}, analysis {[round(x, 2) for x in first_runs]}"
    )
    print(f"analysis, warm worker, first time (median of 3):            {first_s * 1000:8.1f} ms")
    print(f"analysis, cold (worker start + import numba included):       {cold_s * 1000:8.1f} ms")
    print(f"re-analysis after a one-function edit (median of 7):         {edit_s * 1000:8.1f} ms")
    print(f"ratio (a) first analysis vs compile: {compile_s / first_s:6.1f}x   (goal >= 8x)")
    print(f"ratio (a') cold analysis vs compile: {compile_s / cold_s:6.1f}x   (for reference)")
    print(f"ratio (b) one-function edit vs compile: {compile_s / edit_s:6.1f}x   (goal >= 150x)")
    discovery_figures()
    return 0


def discovery_figures() -> None:
    """AST discovery of a 1,000-function file (hovers and lenses run it after each edit) against
    `ast.parse` of the same text, which it cannot beat; and the cached answer for an unchanged text."""
    import ast

    from pyserver.analysis.worker.discover import discovery

    parts = ["import numpy as np", "from numba import njit", ""]
    for i in range(1000):
        parts += ["@njit", f"def function_{i}(a, n):", "    total = 0.0", "    for i in range(n):"]
        parts += [
            "        total += a[i] * 2.0",
            "    out = total + 1.0",
            "    out = out * 2.0",
            "    return out",
        ]
        parts += ["", ""]
    source = "\n".join(parts) + "\n"
    parse_runs, fresh_runs, cached_runs = [], [], []
    for _run in range(5):
        started = time.perf_counter()
        ast.parse(source)
        parse_runs.append(time.perf_counter() - started)
        discovery.clear_found_cache()
        started = time.perf_counter()
        found = discovery.find_jitted_functions(source, "big.py")
        fresh_runs.append(time.perf_counter() - started)
        started = time.perf_counter()
        discovery.find_jitted_functions(source, "big.py")
        cached_runs.append(time.perf_counter() - started)
    assert len(found) == 1000
    parse_s, fresh_s = statistics.median(parse_runs), statistics.median(fresh_runs)
    lines = len(source.splitlines())
    print(f"discovery of 1,000 functions ({lines} lines), new text (median of 5): {fresh_s * 1000:8.1f} ms")
    print(f"  ast.parse of the same text:                                {parse_s * 1000:8.1f} ms")
    print(
        f"  same text again (cached):                                  {statistics.median(cached_runs) * 1000:8.3f} ms"
    )
    print(f"ratio discovery / ast.parse: {fresh_s / parse_s:6.2f}x   (1.0 is the floor)")


if __name__ == "__main__":
    sys.exit(main())
