"""Debugger fidelity (make bench): the programs of tests/debug/fidelity traced in pure Python and run in
a real mixed session (gdb + debugpy + Numba); prints per program and in total how many live variables
were shown, equal, unavailable, wrong, and the stops out of sequence. The figure to watch is the
unavailable share (goal: at most 5% of live jitted variables); wrong and out of sequence must be 0.

`python bench/bench_fidelity.py [PROGRAM ...]` runs the named programs only (stems of the files);
FIDELITY_VERBOSE=1 prints each unavailable or wrong value with the reason the debugger gave."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "debug" / "fidelity"))
sys.path.insert(0, str(ROOT))

from fidelity import Tally, programs, run_program  # noqa: E402


def main() -> int:
    total = Tally()
    with tempfile.TemporaryDirectory() as logs:
        for program in programs(sys.argv[1:]):
            started = time.perf_counter()
            breaks, steps = run_program(program, Path(logs))
            part = Tally()
            part.add(breaks)
            part.add(steps)
            total.add(part)
            print(f"{program.stem:16} {part.line()}  ({time.perf_counter() - started:.0f} s)", flush=True)
            if os.environ.get("FIDELITY_VERBOSE") == "1":
                for problem in part.problems:
                    print(f"    {problem}", flush=True)
    share = total.unavailable / total.live if total.live else 0.0
    print(f"{'all':16} {total.line()}")
    print(f"unavailable share of live variables: {share:.1%} (goal <= 5%)")
    return 1 if total.wrong or total.out_of_sequence else 0


if __name__ == "__main__":
    sys.exit(main())
