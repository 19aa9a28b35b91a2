"""Definitions-only loading (numbaLens.moduleLoading "definitions"): what the dependency slice costs, and
what it saves on a script with top-level work.

(a) The slice of a generated 1,000-line module (kernels, the constants they read, top-level work), against
    `ast.parse` of the same text (the reference, measured in the same run). Goal: <= 50 ms.
(b) Analysis of a script whose top level simulates for ~2 s, through the real engine with a warm worker:
    "definitions" (the simulation is skipped) against "full" (it runs), measured in the same run.
No asserts: this prints figures.
"""

from __future__ import annotations

import ast
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pyserver.analysis.engine import AnalysisEngine  # noqa: E402
from pyserver.analysis.worker.load.toplevel_slice import slice_module  # noqa: E402


def make_module(lines: int = 1000) -> str:
    parts = ["import numpy as np", "from numba import njit", ""]
    k = 0
    while len("\n".join(parts).splitlines()) < lines:
        parts.append(
            textwrap.dedent(
                f"""
                SCALE_{k} = {k}.5
                TABLE_{k} = np.arange(16.0) * SCALE_{k}
                print("loading", {k})
                for _i in range(3):
                    pass

                @njit
                def kernel_{k}(a: float, n: int):
                    total = 0.0
                    for i in range(n):
                        total += a * TABLE_{k}[i % 16] + SCALE_{k}
                    return total

                def helper_{k}(x):
                    return kernel_{k}(x, 10)
                """
            )
        )
        k += 1
    return "\n".join(parts)


def best_of(repeat: int, action) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best * 1000.0


SIMULATION = textwrap.dedent(
    """\
    import time
    import numpy as np
    from numba import njit

    DT = 0.01


    @njit
    def step(x: float, v: float):
        return x + v * DT


    # a simulation at top level: ~2 s of Python work every time the module is loaded in full
    state = np.zeros(3)
    deadline = time.perf_counter() + 2.0
    while time.perf_counter() < deadline:
        state = state * 0.5 + 1.0
    print(state)
    """
)


def main() -> None:
    source = make_module()
    tree = ast.parse(source)
    parse_ms = best_of(5, lambda: ast.parse(source))
    slice_ms = best_of(5, lambda: slice_module(tree))
    skipped = len(slice_module(tree).skipped)
    print(
        f"(a) slice of a {len(source.splitlines())}-line module: {slice_ms:.1f} ms "
        f"({skipped} statements left out); ast.parse of it {parse_ms:.1f} ms; "
        f"ratio {slice_ms / parse_ms:.2f}x parse (goal: <= 50 ms)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "simulation.py"
        path.write_text(SIMULATION)
        timings = {}
        for loading in ("full", "definitions"):
            engine = AnalysisEngine(root, timeout_s=60.0, loading=loading)
            try:
                engine.start()
                engine.analyze(path)  # warm: Numba's first inference in the worker
                path.write_text(SIMULATION + "\n")  # a save
                started = time.perf_counter()
                result = engine.analyze(path)
                timings[loading] = (time.perf_counter() - started) * 1000.0
                typed = sum(bool(f.signatures) for f in result.functions)
            finally:
                engine.close()
            print(
                f"(b) save -> result, loading {loading!r}: {timings[loading]:.0f} ms ({typed} function typed)"
            )
        print(
            f"    definitions-only is {timings['full'] / timings['definitions']:.0f}x faster on this script"
        )


if __name__ == "__main__":
    main()
