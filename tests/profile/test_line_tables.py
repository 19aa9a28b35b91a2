"""The line tables the profiler gives jitted code: line tables only, the same machine code as without the
profiler, and Numba's cache shared with runs outside it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from profile_helpers import ROOT, line_of, run_profile

COMPILED = """
import json, sys
import numpy as np
from numba import njit

if sys.argv[1] == "lines":
    from pyserver.numba_api import profile_lines
    profile_lines.line_tables_only()

@njit
def helper(a):
    return a.sum()

@njit
def kernel(a, n):
    s = 0.0
    for i in range(n):
        s += np.sin(a[i % a.shape[0]]) + helper(a)
    return s

kernel(np.ones(3), 3)
signature = kernel.signatures[0]
print(json.dumps({"llvm": kernel.inspect_llvm(signature), "asm": kernel.inspect_asm(signature)}))
"""

CACHED = """
import json, math
from numba import njit

@njit(cache=True)
def total(n):
    s = 0.0
    for i in range(n):
        s += math.sin(i * 0.001)  # CACHED LOOP
    return s

total(10)
total(40_000_000)
print(json.dumps({"hits": sum(total.stats.cache_hits.values()), "misses": sum(total.stats.cache_misses.values())}))
"""


def _instructions(asm: str) -> list[str]:
    """The instructions of an assembly listing, names out: symbols carry the flags' ABI tag, and the
    constants of error messages an object's address (different in every process)."""
    lines = [
        line.strip()
        for line in asm.splitlines()
        if line.startswith("\t") and not line.strip().startswith(".")
    ]
    return [re.sub(r"_ZN\w+|\.const\.picklebuf\.\d+|0x[0-9a-f]+", "NAME", line) for line in lines]


def test_line_tables_only_and_the_same_code(tmp_path: Path) -> None:
    program = tmp_path / "compiled.py"
    program.write_text(COMPILED)
    results = {}
    for mode in ("alone", "lines"):
        proc = subprocess.run(
            [sys.executable, str(program), mode], capture_output=True, text=True, cwd=ROOT, timeout=240
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        results[mode] = json.loads(proc.stdout.strip().splitlines()[-1])
    lines = results["lines"]["llvm"]
    assert "emissionKind: LineTablesOnly" in lines
    assert "DILocalVariable" not in lines and "llvm.dbg.declare" not in lines
    assert "!dbg" not in results["alone"]["llvm"]
    assert _instructions(results["lines"]["asm"]) == _instructions(results["alone"]["asm"])


def test_numba_cache_is_shared_with_runs_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if sys.platform != "linux":
        pytest.skip("the sampler is Linux-only")
    program = tmp_path / "cached.py"
    program.write_text(CACHED)
    loop = line_of(program, "CACHED LOOP")

    def alone() -> dict[str, int]:
        proc = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=240)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return dict(json.loads(proc.stdout.strip().splitlines()[-1]))

    def profiled() -> tuple[dict[str, int], dict[str, object]]:
        data, proc = run_profile(tmp_path, program)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return dict(json.loads(proc.stdout.strip().splitlines()[-1])), data

    # Written alone, hit under the profiler.
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache-alone-first"))
    assert alone() == {"hits": 0, "misses": 1}
    assert profiled()[0] == {"hits": 1, "misses": 0}
    # Written under the profiler (with line tables), hit alone, and hit again under the profiler with its
    # lines: the cached code has them.
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache-profiled-first"))
    assert profiled()[0] == {"hits": 0, "misses": 1}
    assert alone() == {"hits": 1, "misses": 0}
    counts, data = profiled()
    assert counts == {"hits": 1, "misses": 0}
    lines = data["lines"]
    assert isinstance(lines, list)
    assert any(e["path"] == str(program) and e["line"] == loop and e["jitted"] for e in lines), lines[:5]
