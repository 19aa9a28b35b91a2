"""A parallel region's workers are sampled one per tick, each sample counting for the running workers it
stands for: the lines of two prange loops of known relative cost get their share, the workers' weighted
samples match what the main thread (which takes part in the loop) shows of one thread's share, and the
profile says which counts are estimates. `--every-worker` stops each worker and counts exactly."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from profile_helpers import PROGRAMS, line_of, run_profile

PROGRAM = PROGRAMS / "two_pranges.py"
THREADS = 4  # more than this machine's 2 cores on purpose: three workers to choose among at each tick


def _profile(tmp_path: Path, *options: str, seconds: str = "4") -> tuple[dict, dict]:
    if os.uname().machine != "x86_64":
        pytest.skip("the sampler reads x86-64 registers")
    env = dict(os.environ, NUMBA_NUM_THREADS=str(THREADS))
    data, proc = run_profile(tmp_path, PROGRAM, seconds, "10000000", options=options, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    truth = json.loads(proc.stdout.strip().splitlines()[-1])  # the program's own timing of each loop
    return data, truth


def _loop_samples(data: dict, name: str, next_name: str) -> int:
    """The jitted samples on the lines of function `name` (its loop's body: Numba 0.61 puts an optimised
    prange body on the `prange` line, later versions on the body's)."""
    first, end = line_of(PROGRAM, f"def {name}("), line_of(PROGRAM, f"def {next_name}(")
    return sum(
        e["samples"]
        for e in data["lines"]
        if e["path"] == str(PROGRAM) and first <= e["line"] < end and e["jitted"]
    )


def test_parallel_region_lines_get_their_share(tmp_path: Path) -> None:
    data, truth = _profile(tmp_path)
    assert truth["threads"] == THREADS
    workers = [t for t in data["threads"] if "native thread" in t["name"]]
    assert len(workers) >= THREADS - 1, data["threads"]
    # Workers were sampled for their pool: weighted samples, said to be estimates, fewer stops.
    assert data["estimated_samples"] > 0 and data["samples_taken"] < data["samples"]
    assert any(w["samples"] > w["taken"] for w in workers)
    for worker in workers:  # every sample placed: a line, the prange body's file, or a library
        assert worker["attributed"] == worker["samples"], worker
    sampler = data["sampler"]
    assert not sampler["every_worker"]
    # While workers ran: the main thread and one worker stopped per tick (another when the one chosen
    # had just ended), where stopping each would have stopped every running worker.
    assert sampler["worker_ticks"] > 0 and sampler["workers_running"] > sampler["worker_ticks"], sampler
    assert sampler["worker_tick_stops"] <= 2 * sampler["worker_ticks"] + 10, sampler
    # The two loops' lines: the ratio of their samples is their ratio of time (~3) within 25%.
    heavy, light = _loop_samples(data, "heavy", "light"), _loop_samples(data, "light", "main")
    assert light > 20, data["lines"][:10]
    expected = truth["heavy_s"] / truth["light_s"]
    assert abs((heavy / light) / expected - 1) <= 0.25, (heavy, light, truth)
    if truth["layer"] in ("omp", "tbb"):
        # The main thread runs its share of each loop, sampled at every tick, exactly: the workers'
        # weighted jitted samples come to about that share each. Unweighted, they would be ~1/3 of it.
        main = next(t for t in data["threads"] if t["name"] == "MainThread")
        per_worker = sum(w["jitted"] for w in workers) / (THREADS - 1) / main["jitted"]
        assert 0.65 <= per_worker <= 1.5, (per_worker, main, workers)


def test_every_worker_counts_each_thread(tmp_path: Path) -> None:
    data, _ = _profile(tmp_path, "--every-worker", seconds="2")
    sampler = data["sampler"]
    assert sampler["every_worker"] and sampler["worker_ticks"] > 0
    assert (
        sampler["worker_tick_stops"] >= sampler["workers_running"]
    )  # each running worker, and the main thread
    assert data["estimated_samples"] == 0 and data["samples"] == data["samples_taken"]
    assert all(t["samples"] == t["taken"] for t in data["threads"])
    assert all(e["samples"] == e["taken"] for e in data["lines"])
    assert _loop_samples(data, "heavy", "light") > 0 and _loop_samples(data, "light", "main") > 0
