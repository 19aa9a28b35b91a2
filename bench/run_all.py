"""`make bench`: runs every bench/bench_*.py in turn and prints their ratios in one report.

Among them bench_notebook.py: a one-cell edit of a 50-cell notebook. Each benchmark is a script that prints its own figures (a ratio against Numba's own compile or
against plain gdb, measured in the same run). A benchmark that fails is reported and the rest go on.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    print(
        f"Numba Lens benchmarks on {platform.node()} ({platform.machine()}, Python {platform.python_version()})"
    )
    failed = []
    for script in scripts:
        print(f"\n== {script.name}", flush=True)
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, str(script)], cwd=HERE.parent)
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
        if proc.returncode != 0:
            failed.append(script.name)
    if failed:
        print("\nfailed:", ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
