"""Profiler benchmark: accuracy and cost of `python -m pyserver profile` on programs whose time split
is known by construction, and cProfile's distortion on the seed case.

1. Split: two jitted loops, one arithmetic (the samples land in jitted code) and one calling `sin` (the
   samples land in libm, below the jitted line), sized so that they take ~70% and ~30% of the run.
   The program times each call itself (perf_counter around calls of ~50 ms), which is the truth.
   Prints the attribution error per line (goal <= 5 points) and the overhead: the program's own run
   time under the profiler against the same program alone, best of a few alternated runs (goal <= 5%).
2. prange: a parallel loop; prints each worker thread's samples and how many landed on a source line
   (goal: every worker's samples attributed).
3. Seed case: a no-op @njit called 10^7 times from a loop vs a no-op Python function: the ratio of the
   two callers' times alone, under cProfile (its distortion) and under this profiler.
The whole run's cost, compiles included (what a user waits for), is bench_profile_whole_run.py's.

Prints figures only; nothing here asserts a time.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5

SPLIT_PROGRAM = """
import json, math, sys, time
from numba import njit

@njit
def arithmetic(n):
    x = 1
    for i in range(n):
        x = (x * 1103515245 + 12345 + i) % 2147483647  # LINE_A
    return x

@njit
def with_sin(n):
    s = 0.0
    for i in range(n):
        s += math.sin(i * 0.001)  # LINE_B
    return s

def calibrate(function, seconds):
    n = 1000
    while True:
        started = time.perf_counter(); function(n); spent = time.perf_counter() - started
        if spent > 0.02:
            return int(n * seconds / spent)
        n *= 4

arithmetic(10); with_sin(10)
if len(sys.argv) > 2:  # the same work in every run: sizes from the calibration run
    n_a, n_b = int(sys.argv[2]), int(sys.argv[3])
else:
    n_a, n_b = calibrate(arithmetic, 0.035), calibrate(with_sin, 0.015)
spent = {"n_a": n_a, "n_b": n_b}
spent.update(a=0.0, b=0.0)
started = time.perf_counter()
for _ in range(int(sys.argv[1])):
    t = time.perf_counter(); arithmetic(n_a); spent["a"] += time.perf_counter() - t
    t = time.perf_counter(); with_sin(n_b); spent["b"] += time.perf_counter() - t
spent["run"] = time.perf_counter() - started
print(json.dumps(spent))
"""

PRANGE_PROGRAM = """
import math
from numba import njit, prange

@njit(parallel=True)
def parallel_sum(n):
    s = 0.0
    for i in prange(n):
        s += math.sqrt(i) * math.sin(i)  # LINE_P
    return s

for _ in range(40):
    parallel_sum(3_000_000)
"""

SEED_PROGRAM = """
import sys, time
from numba import njit

@njit
def noop_jit():
    pass

def noop_py():
    pass

def call_jit(n):
    for _ in range(n):
        noop_jit()

def call_py(n):
    for _ in range(n):
        noop_py()

if __name__ == "__main__":
    noop_jit()
    n = int(sys.argv[1])
    started = time.perf_counter()
    call_jit(n)
    middle = time.perf_counter()
    call_py(n)
    print(middle - started, time.perf_counter() - middle)
"""


def line_of(source: str, marker: str) -> int:
    return next(i for i, text in enumerate(source.splitlines(), 1) if marker in text)


def profile(program: Path, *args: str) -> tuple[dict[str, Any], str, float]:
    # The profile goes to a temporary file: never beside the program (examples/ is the user's folder).
    with tempfile.TemporaryDirectory(prefix="numba-lens-bench-profile-") as folder:
        return _profile_into(Path(folder) / "profile.json", program, *args)


def _profile_into(out: Path, program: Path, *args: str) -> tuple[dict[str, Any], str, float]:
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyserver",
            "profile",
            "--format",
            "json",
            "--out",
            str(out),
            "--",
            sys.executable,
            str(program),
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"profile failed: {proc.stderr[-2000:]}")
    return json.loads(out.read_text()), proc.stdout, wall


def plain(program: Path, *args: str) -> tuple[str, float]:
    # The profiler adds line tables and leaves the code as it is: the same code runs here.
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DEBUGINFO"}
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(program), *args], capture_output=True, text=True, env=env, check=True
    )
    return proc.stdout, time.perf_counter() - started


def split(folder: Path) -> None:
    program = folder / "split.py"
    program.write_text(SPLIT_PROGRAM)
    line_a, line_b = line_of(SPLIT_PROGRAM, "LINE_A"), line_of(SPLIT_PROGRAM, "LINE_B")
    reps = "100"  # ~5 s of run: ~500 samples, a sampling error of ~2 points on a 70/30 split
    calibration, _ = plain(program, "1")
    sizes = json.loads(calibration.strip().splitlines()[-1])
    sized = (reps, str(sizes["n_a"]), str(sizes["n_b"]))
    alone, profiled, errors, held, paused = [], [], [], [], []
    for _ in range(RUNS):
        stdout, _ = plain(program, *sized)
        alone.append(json.loads(stdout.strip().splitlines()[-1])["run"])
        result, stdout, _ = profile(program, *sized)
        truth = json.loads(stdout.strip().splitlines()[-1])
        profiled.append(truth["run"])
        lines = {(e["path"], e["line"]): e["samples"] for e in result["lines"]}
        a, b = lines.get((str(program), line_a), 0), lines.get((str(program), line_b), 0)
        if a + b == 0:
            print("   no samples on either loop line")
            continue
        true_a = truth["a"] / (truth["a"] + truth["b"])
        errors.append((100 * abs(a / (a + b) - true_a), true_a, a, b, result["samples"]))
        held.append(100 * result["held_s"] / result["duration_s"])
        paused.append(result["pause_median_us"] or 0.0)
    overhead = 100 * (min(profiled) / min(alone) - 1)
    # Runs alternate (alone, profiled, alone, ...): the median of each pair's ratio resists load swings.
    paired = 100 * (statistics.median(p / a for p, a in zip(profiled, alone, strict=True)) - 1)
    print(
        f"   split: program's run alone {min(alone):.3f} s, under the profiler {min(profiled):.3f} s (best of {RUNS})"
    )
    print(
        f"   overhead at the default rate: {overhead:+.1f}% of run time, best against best; median of "
        f"{RUNS} alternated pairs {paired:+.1f}% (goal <= 5%)"
    )
    print(
        f"   sampler's own work per sample, thread stopped (median): {min(paused):.0f} us (at 100 Hz: "
        f"{min(paused) * 100 / 1e4:.2f}% of one thread's time); from the stop request: threads held "
        f"{min(held):.1f}% of the run at best, {max(held):.1f}% at worst (machine load now: "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; waits for a busy CPU count here)"
    )
    for error, true_a, a, b, total in errors:
        print(
            f"   attribution: truth {100 * true_a:.1f}% / {100 * (1 - true_a):.1f}%, profile {a} / {b} samples "
            f"({100 * a / (a + b):.1f}%), error {error:.1f} points per line (goal <= 5); {total} samples in all"
        )
    if errors:
        print(f"   worst attribution error: {max(e[0] for e in errors):.1f} points")


def prange(folder: Path) -> None:
    program = folder / "prange_split.py"
    program.write_text(PRANGE_PROGRAM)
    line_p = line_of(PRANGE_PROGRAM, "LINE_P")
    result, _, _ = profile(program)
    # Per thread: samples, and samples attributed to the prange body's line, from the speedscope-free
    # JSON: re-run the attribution per thread from the lines is not possible, so count thread samples
    # and the body line's share of all samples.
    body = sum(e["samples"] for e in result["lines"] if e["path"] == str(program) and e["line"] == line_p)
    workers = [t for t in result["threads"] if "native thread" in t["name"]]
    print(
        f"   prange: {len(workers)} worker threads sampled: "
        + ", ".join(f"{t['id']}: {t['samples']}" for t in workers)
    )
    print(
        f"   prange body line {line_p}: {body} of {result['samples']} samples; per-thread attribution: "
        + ", ".join(f"{t['id']}: {t.get('attributed', '?')}/{t['samples']}" for t in result["threads"])
    )


def seed(folder: Path) -> None:
    program = folder / "seed.py"
    program.write_text(SEED_PROGRAM)
    n = 10_000_000
    sys.path.insert(0, str(folder))
    import seed as seed_module  # the program itself, imported to time it and to run cProfile on it

    seed_module.noop_jit()
    started = time.perf_counter()
    seed_module.call_jit(n)
    jit_alone = time.perf_counter() - started
    started = time.perf_counter()
    seed_module.call_py(n)
    py_alone = time.perf_counter() - started
    profiler = cProfile.Profile()
    profiler.enable()
    seed_module.call_jit(n)
    seed_module.call_py(n)
    profiler.disable()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    cumulative = {func[2]: entry[3] for func, entry in stats.items()}
    jit_cprofile, py_cprofile = cumulative.get("call_jit", 0.0), cumulative.get("call_py", 0.0)
    result, stdout, _ = profile(program, str(n))
    jit_during, py_during = (float(v) for v in stdout.split()[-2:])  # the program's own timing, same run
    inclusive = {
        f["name"]: f.get("total_samples", 0) for f in result["functions"] if f["path"] == str(program)
    }
    jit_ours, py_ours = inclusive.get("call_jit", 0), inclusive.get("call_py", 0)
    print(
        f"   seed case (10^7 calls): call_jit {jit_alone:.2f} s, call_py {py_alone:.2f} s alone: ratio {jit_alone / py_alone:.2f}"
    )
    print(
        f"   under cProfile: call_jit {jit_cprofile:.2f} s, call_py {py_cprofile:.2f} s: ratio "
        f"{jit_cprofile / max(py_cprofile, 1e-9):.2f} (cProfile's distortion: "
        f"{(jit_cprofile / max(py_cprofile, 1e-9)) / (jit_alone / py_alone):.2f}x)"
    )
    ours = jit_ours / max(py_ours, 1)
    print(
        f"   under this profiler: call_jit {jit_ours} samples, call_py {py_ours} samples: ratio {ours:.2f}; "
        f"the program's own timing in that run: {jit_during:.2f} s / {py_during:.2f} s = "
        f"{jit_during / py_during:.2f} (distortion {ours / (jit_during / py_during):.2f}x)"
    )


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as tmp:
        folder = Path(tmp).resolve()
        split(folder)
        prange(folder)
        seed(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
