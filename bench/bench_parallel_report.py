"""What the parallel report costs: type inference of a parallel=True function with the report
(parfor fusion + Numba's hoisting rule) against the same inference without it, and against Numba's own
full compile of the function, in one process. Goal: the report costs less than half a full compile.
No asserts: this prints figures (medians of 7 warm runs).
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from numba import types  # noqa: E402

from pyserver import numba_api  # noqa: E402

RUNS = 7


def main() -> None:
    spec = importlib.util.spec_from_file_location(
        "parallel_corpus", ROOT / "tests/insight/corpus/parallel.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    numba_api.install()  # as the analysis worker does at start
    numba_api.refresh_contexts()
    args = (types.float64[:], types.float64[:, :])

    def timed(run: object) -> float:
        samples = []
        for _ in range(RUNS):
            started = time.perf_counter()
            run()  # type: ignore[operator]
            samples.append((time.perf_counter() - started) * 1000.0)
        return statistics.median(samples)

    numba_api.infer(module.kernel, args, None)  # warm the registries
    with_report = timed(lambda: numba_api.infer(module.kernel, args, None))
    original = numba_api.LensParforReport.run_pass
    numba_api.LensParforReport.run_pass = lambda self, state: True  # type: ignore[method-assign]
    without = timed(lambda: numba_api.infer(module.kernel, args, None))
    numba_api.LensParforReport.run_pass = original  # type: ignore[method-assign]

    def full_compile() -> None:
        fresh = type(module.kernel)(module.kernel.py_func, targetoptions={"parallel": True, "nopython": True})
        fresh.compile(args)

    compile_ms = timed(full_compile)
    print(f"inference with the parallel report: {with_report:.0f} ms")
    print(f"inference without it:               {without:.0f} ms  (report: +{with_report - without:.0f} ms)")
    print(
        f"Numba's full compile:               {compile_ms:.0f} ms  (goal: report < {compile_ms / 2:.0f} ms)"
    )


if __name__ == "__main__":
    main()
