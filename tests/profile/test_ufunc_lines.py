"""@vectorize and @guvectorize: Numba's loop wrapper inlines the user's function, and the profile puts
that code's samples on the user's lines, as jitted time of the function named for it (not in Numba's
Python `__call__`, where they were before the wrapper had lines of its own)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from profile_helpers import PROGRAMS, line_of, run_profile

PROGRAM = PROGRAMS / "ufunc_loops.py"


def test_ufunc_and_gufunc_loops_are_jitted_on_their_lines(tmp_path: Path) -> None:
    if os.uname().machine != "x86_64":
        pytest.skip("the sampler reads x86-64 registers")
    data, proc = run_profile(tmp_path, PROGRAM, "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    for marker, name in (("# VECTORIZE", "wave"), ("# GUVECTORIZE", "smooth")):
        line = line_of(PROGRAM, marker)
        entries = [e for e in data["lines"] if e["path"] == str(PROGRAM) and e["line"] == line]
        assert entries and all(e["jitted"] for e in entries), (marker, data["lines"][:8])
        assert entries[0]["function"].endswith(name), entries
        assert sum(e["samples"] for e in entries) >= 0.15 * data["samples"], (
            marker,
            entries,
            data["samples"],
        )
    main = next(t for t in data["threads"] if t["name"] == "MainThread")
    # The loops are most of the run (the rest: start-up, imports, the compiles at decoration).
    assert main["jitted"] >= 0.5 * main["samples"] and main["jitted_without_line"] <= 0.1 * main["jitted"], (
        main
    )
    numba_calls = [
        e for e in data["lines"] if "/numba/np/ufunc/" in e["path"] and e["function"] == "__call__"
    ]
    assert sum(e["samples"] for e in numba_calls) <= 0.05 * data["samples"], numba_calls
