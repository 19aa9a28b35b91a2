"""Profiler benchmark: what a user waits for. The whole run of `python -m pyserver profile -- python P`
(start-up, Numba's compiles, the run, the report) against `python P` alone, compiles included, on:

- compile-heavy: examples/kernels.py (mostly compiles; three `debug=True` functions);
- parallel: bench/programs/parallel_stats.py (three jitted functions, one `parallel=True`, ~2 s run);
- split: bench_profile.py's two-loop program (~5 s run, the attribution benchmark's program).

Runs alternate (alone, profiled, alone, ...) so that drift in the machine's load hits both alike; the
ratio is the median of the pairs' ratios (goal <= 1.10 each). The CPU time of every process of a run
(the profiler's included) is printed too: on a loaded machine it moves less than the wall time.
`--options` also times the line-table options the profiler chose between (docs/profiling.md): the program alone with Numba's full debug info
(NUMBA_DEBUGINFO=1), and the profiler without line tables (the floor any line source can reach).
`--every-worker` also times the profiler stopping every worker of a parallel region at each tick (the
sampler before it sampled one of them for all). `--against DIR` also times the profiler of another checkout (DIR, with its own `pyserver`), alternated
with the others: a before/after comparison under the same load. After each profiled run the sampler's
own figures are read from the profile (thread stops per tick, the sampling loop's CPU per sample taken),
which unlike the wall time do not move with the machine's load.
Another check: a `cache=True` function compiled alone is loaded from Numba's cache under the profiler.

Exits 0 when every ratio meets its goal and the cache hits, else 1 (a bench goal, not a test).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_profile import SPLIT_PROGRAM  # noqa: E402

GOAL = 1.10

CACHED_PROGRAM = """
import json, os, sys
from numba import njit

@njit(cache=True)
def total(n):
    s = 0
    for i in range(n):
        s += i % 7
    return s

total(1000)
print(json.dumps({"hits": sum(total.stats.cache_hits.values()), "misses": sum(total.stats.cache_misses.values())}))
"""


# CPU seconds (user + system) of the last run's whole process tree (the profiler and the program).
LAST_CPU = [0.0]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> tuple[float, str]:
    started, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    LAST_CPU[0] = _children_cpu() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"{command} failed: {proc.stderr[-2000:]}")
    return wall, proc.stdout


def profiled_command(program: list[str], out: Path, *options: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pyserver",
        "profile",
        "--format",
        "json",
        "--out",
        str(out),
        *options,
        "--",
        *program,
    ]


def ratios(
    name: str, program: list[str], runs: int, variants: dict[str, Callable[[Path], tuple[float, str]]]
) -> dict[str, float]:
    """Median over alternated rounds of each variant's wall time against the program alone."""
    walls: dict[str, list[float]] = {"alone": [], **{key: [] for key in variants}}
    cpus: dict[str, list[float]] = {key: [] for key in walls}
    stats: dict[str, list[str]] = {key: [] for key in variants}
    with tempfile.TemporaryDirectory(prefix="numba-lens-bench-whole-") as folder:
        out = Path(folder) / "profile.json"
        for _ in range(runs):
            walls["alone"].append(timed([sys.executable, *program])[0])
            cpus["alone"].append(LAST_CPU[0])
            for key, run in variants.items():
                out.unlink(missing_ok=True)
                walls[key].append(run(out)[0])
                cpus[key].append(LAST_CPU[0])
                stats[key].append(sampler_figures(out))
    medians = {}
    for key in variants:
        pairs = [v / a for v, a in zip(walls[key], walls["alone"], strict=True)]
        medians[key] = statistics.median(pairs)
        print(
            f"   {name}: {key}: {medians[key]:.3f}x the program alone (median of {runs} alternated pairs; "
            f"walls {statistics.median(walls[key]):.2f} s vs {statistics.median(walls['alone']):.2f} s; "
            f"CPU of every process {statistics.median(cpus[key]):.2f} s vs {statistics.median(cpus['alone']):.2f} s)",
            flush=True,
        )
        if any(stats[key]):
            print(f"      the sampler, run by run: {'; '.join(stats[key])}", flush=True)
    return medians


def sampler_figures(out: Path) -> str:
    """Thread stops per tick and the sampling loop's CPU per sample taken, from a run's JSON profile
    (a version of the profiler without these figures gives what it has)."""
    try:
        profile = json.loads(out.read_text())
    except (OSError, ValueError):
        return ""
    taken = profile.get("samples_taken", profile.get("samples", 0))
    sampler = profile.get("sampler")
    if sampler is None:
        return f"{taken} samples, held {profile.get('held_s', 0):.3f} s"
    rounds = max(sampler["rounds"], 1)
    worker_ticks = max(sampler["worker_ticks"], 1)
    return (
        f"{sampler['stops'] / rounds:.2f} stops/tick over {rounds} ticks; at the {sampler['worker_ticks']} "
        f"ticks with native workers running ({sampler['workers_running'] / worker_ticks:.1f} of them), "
        f"{sampler['worker_tick_stops'] / worker_ticks:.2f} stops/tick; "
        f"{1e6 * sampler['cpu_s'] / max(taken, 1):.0f} us CPU/sample ({taken} taken for {profile['samples']}), "
        f"held {profile['held_s']:.3f} s"
    )


def cache_check(folder: Path) -> bool:
    program = folder / "cached.py"
    program.write_text(CACHED_PROGRAM)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(folder / "cache"))
    first = json.loads(timed([sys.executable, str(program)], env)[1].splitlines()[-1])
    out = folder / "profile.json"
    _, stdout = timed(profiled_command([sys.executable, str(program)], out), env)
    under = json.loads(stdout.splitlines()[-1])
    print(
        f"   cache=True: alone first run {first}, then under the profiler {under} "
        f"({'hit' if under['hits'] and not under['misses'] else 'MISSED'})"
    )
    return bool(under["hits"] and not under["misses"])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_PROFILE_RUNS", "7")))
    parser.add_argument("--options", action="store_true", help="also time the line-table options")
    parser.add_argument("--only", default=None, help="one program: compile-heavy, parallel or split")
    parser.add_argument(
        "--every-worker",
        action="store_true",
        help="also time the profiler stopping every worker of a parallel region at each tick",
    )
    parser.add_argument(
        "--against", type=Path, default=None, metavar="DIR", help="also time the profiler of the checkout DIR"
    )
    args = parser.parse_args()
    print(
        f"   machine load now: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.runs} rounds each",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="bench-profile-whole-") as tmp:
        folder = Path(tmp).resolve()
        split_program = folder / "split.py"
        split_program.write_text(SPLIT_PROGRAM)
        _, calibration = timed([sys.executable, str(split_program), "1"])
        sizes = json.loads(calibration.strip().splitlines()[-1])
        programs = {
            "compile-heavy": [str(ROOT / "examples" / "kernels.py")],
            "parallel": [str(ROOT / "bench" / "programs" / "parallel_stats.py")],
            "split": [str(split_program), "100", str(sizes["n_a"]), str(sizes["n_b"])],
        }
        results = {}
        for name, program in programs.items():
            if args.only and name != args.only:
                continue
            command = [sys.executable, *program]

            def profiled(out: Path, command: list[str] = command) -> tuple[float, str]:
                return timed(profiled_command(command, out))

            variants: dict[str, Callable[[Path], tuple[float, str]]] = {"profiled": profiled}
            if args.against is not None:
                against = args.against.resolve()

                def profiled_against(
                    out: Path, command: list[str] = command, against: Path = against
                ) -> tuple[float, str]:
                    # `-m pyserver` finds the package in its working folder first.
                    env = dict(os.environ, PYTHONPATH=str(against))
                    return timed(profiled_command(command, out), env, cwd=against)

                variants[f"profiled by {against}"] = profiled_against
            if args.every_worker:

                def every_worker(out: Path, command: list[str] = command) -> tuple[float, str]:
                    return timed(profiled_command(command, out, "--every-worker"))

                variants["profiled, --every-worker"] = every_worker
            if args.options:

                def full_debug(out: Path, command: list[str] = command) -> tuple[float, str]:
                    return timed(command, dict(os.environ, NUMBA_DEBUGINFO="1"))

                def old_launch(out: Path, command: list[str] = command) -> tuple[float, str]:
                    env = dict(os.environ, NUMBA_DEBUGINFO="1", NUMBA_LENS_LINE_TABLES="0")
                    return timed(profiled_command(command, out), env)

                def no_lines(out: Path, command: list[str] = command) -> tuple[float, str]:
                    return timed(profiled_command(command, out), dict(os.environ, NUMBA_LENS_LINE_TABLES="0"))

                variants.update(
                    {
                        "alone with NUMBA_DEBUGINFO=1": full_debug,
                        "profiled, full debug info": old_launch,
                        "profiled, no line tables": no_lines,
                    }
                )
            results[name] = ratios(name, program, args.runs, variants)["profiled"]
        cache_hits = cache_check(folder)
    print(
        "   whole run under the profiler / alone (goal <= 1.10 each): "
        + ", ".join(f"{name} {ratio:.3f}" for name, ratio in results.items())
    )
    return 0 if cache_hits and all(ratio <= GOAL for ratio in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
