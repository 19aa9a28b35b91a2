"""The fidelity harness: each program traced in pure Python, then run in a real mixed session
(gdb + debugpy + Numba) that stops at every marked line and steps through the marked ranges. Fails on
any wrong value and on any stop out of Python's sequence; prints the counts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fidelity import Tally, programs, run_program

pytestmark = pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.stem)
def test_values_and_sequence_match_python(program: Path, tmp_path: Path) -> None:
    breaks, steps = run_program(program, tmp_path)
    print(f"\n{program.name} breakpoints: {breaks.line()}\n{program.name} steps: {steps.line()}")
    problems = "\n".join(breaks.problems + steps.problems)
    assert breaks.wrong == 0 and steps.wrong == 0, problems
    assert breaks.out_of_sequence == 0 and steps.out_of_sequence == 0, problems


# A short form of `make bench`'s fidelity figures: programs in styles unlike the debugger's own tests
# (a Game of Life step, particles in a record array with a namedtuple result).
SHORT_FORM = ["life", "particles"]
UNAVAILABLE_GOAL = 0.05


def test_fidelity_figures_short_form(tmp_path: Path) -> None:
    total = Tally()
    for program in programs(SHORT_FORM):
        breaks, steps = run_program(program, tmp_path)
        total.add(breaks)
        total.add(steps)
    print(f"\nshort form: {total.line()}")
    problems = "\n".join(total.problems)
    assert total.live and total.unavailable / total.live <= UNAVAILABLE_GOAL, problems
    assert total.wrong == 0 and total.out_of_sequence == 0, problems
