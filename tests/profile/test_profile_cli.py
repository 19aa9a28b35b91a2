"""`python -m pyserver profile` on real Numba programs: lines, functions, threads, Python callers, compile
time apart, the JSON contract, speedscope's format, a crash mid-run and no process left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from profile_helpers import PROGRAMS, ROOT, line_of, process_gone, run_profile

Profile = tuple[dict[str, Any], subprocess.CompletedProcess[str], Path]


def test_json_contract_shape(workload_profile: Profile) -> None:
    data, _, _ = workload_profile
    assert isinstance(data["samples"], int) and data["samples"] > 0
    assert data["duration_s"] > 1.5 and data["rate_hz"] == 100
    for entry in data["lines"]:
        assert set(entry) >= {"path", "line", "function", "jitted", "samples", "fraction"}
        assert entry["line"] >= 1 and (os.path.isabs(entry["path"]) or entry["path"].startswith("<"))
        assert abs(entry["fraction"] - entry["samples"] / data["samples"]) < 1e-5
    for entry in data["functions"]:
        assert set(entry) >= {"path", "name", "signature", "jitted", "samples", "fraction"}
    for entry in data["threads"]:
        assert set(entry) >= {"id", "name", "samples"}
    for entry in data["compile"]:
        assert set(entry) >= {"path", "name", "signature", "seconds"}
    assert sum(t["samples"] for t in data["threads"]) == data["samples"]
    assert sum(f["samples"] for f in data["functions"]) == data["samples"]
    # `samples` add each sample's weight (the threads it stands for); `taken` counts the samples.
    assert sum(t["taken"] for t in data["threads"]) == data["samples_taken"]
    assert sum(f["taken"] for f in data["functions"]) == data["samples_taken"]
    assert data["samples_taken"] <= data["samples"]
    assert data["samples"] - data["estimated_samples"] <= data["samples_taken"]
    for entry in data["lines"]:
        assert 1 <= entry["taken"] <= entry["samples"]
    sampler = data["sampler"]
    assert sampler["rounds"] > 0 and sampler["stops"] > 0 and sampler["cpu_s"] > 0


def test_hot_jitted_line_and_function(workload_profile: Profile) -> None:
    data, _, program = workload_profile
    hot_line = line_of(program, "# HOT")
    jitted_lines = [e for e in data["lines"] if e["jitted"] and e["path"] == str(program)]
    assert jitted_lines, data["lines"][:10]
    hot = next(e for e in jitted_lines if e["line"] == hot_line)
    assert hot["function"] == "hot"
    # The loop runs for 1.5 s of wall time (shared with a busy thread on a loaded machine): many samples.
    assert hot["samples"] >= 20
    hot_function = next(f for f in data["functions"] if f["name"] == "hot" and f["jitted"])
    assert hot_function["signature"] == "(int64)"
    assert hot_function["path"] == str(program)
    # Nearly all of the function's own samples carry its loop line (the rest: its prologue, say).
    assert hot["samples"] >= 0.8 * hot_function["samples"]


def test_threads_prange_workers_and_a_python_thread(workload_profile: Profile) -> None:
    data, _, program = workload_profile
    workers = [t for t in data["threads"] if "native thread" in t["name"]]
    assert workers, data["threads"]
    prange_line = line_of(program, "# PRANGE")
    assert any(e["line"] == prange_line and e["jitted"] and e["function"] == "spread" for e in data["lines"])
    assert sum(w["jitted"] for w in workers) > 0
    for worker in workers:
        # Every sample is placed: on a source line, or in the threading layer's library (OpenMP's
        # barrier spins between parallel loops); jitted samples carry a line, but for one caught in a
        # prologue now and then (a worker may have only a handful of samples: one of 6 is not 10%).
        assert worker["attributed"] == worker["samples"], worker
        assert worker["jitted_without_line"] <= max(1, 0.1 * worker["jitted"]), worker
    without_line = sum(w["jitted_without_line"] for w in workers)
    assert without_line <= max(1, 0.1 * sum(w["jitted"] for w in workers)), workers
    background_line = line_of(program, "# BACKGROUND")
    background = [e for e in data["lines"] if e["line"] == background_line and e["path"] == str(program)]
    assert background and background[0]["jitted"] and background[0]["function"] == "background"
    main = [t for t in data["threads"] if t["name"] == "MainThread"]
    assert len(main) == 1 and len(data["threads"]) >= 3


def test_compile_time_reported_apart(workload_profile: Profile) -> None:
    data, _, program = workload_profile
    compiles = {(c["name"], c["signature"]): c for c in data["compile"] if c["path"] == str(program)}
    assert {("hot", "(int64)"), ("spread", "(int64)"), ("background", "(int64)")} <= set(compiles)
    assert all(c["seconds"] > 0 for c in compiles.values())
    assert data["compiling_samples"] > 0  # samples under Numba's compiler, counted apart
    # A sample taken inside a compile lands on the compiled function's first line (its decorator), named
    # "<function> [compile]", under the code that called it: spread's parallel compile takes ~1 s.
    source = program.read_text().splitlines()
    compile_lines = [e for e in data["lines"] if e["function"].endswith(" [compile]")]
    assert any(e["function"] == "spread [compile]" and e["path"] == str(program) for e in compile_lines)
    for entry in compile_lines:
        if entry["path"] == str(program):
            name = entry["function"].removesuffix(" [compile]")
            assert source[entry["line"]].startswith(f"def {name}("), entry
            assert source[entry["line"] - 1].startswith("@njit"), entry
    functions = {(f["name"], f["path"]): f for f in data["functions"]}
    spread_compile = functions[("spread [compile]", str(program))]
    assert not spread_compile["jitted"] and spread_compile["signature"] == "(int64)"


def test_text_output_to_stdout_by_default(tmp_path: Path) -> None:
    program = PROGRAMS / "crash.py"
    proc = subprocess.run(
        [sys.executable, "-m", "pyserver", "profile", "--", sys.executable, str(program), "12"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert "Hot lines" in proc.stdout and "Compile time" in proc.stdout
    spin_line = line_of(program, "# SPIN")
    assert f"crash.py:{spin_line}" in proc.stdout
    assert f"exited with code {128 + signal.SIGSEGV}" in proc.stdout


def test_crash_mid_run_speedscope_with_python_callers(tmp_path: Path) -> None:
    program = PROGRAMS / "crash.py"
    data, proc = run_profile(tmp_path, program, "20", fmt="speedscope")
    assert proc.returncode == 128 + signal.SIGSEGV, proc.stderr[-2000:]
    pid = int(proc.stdout.split()[0])
    assert process_gone(pid)
    assert data["$schema"] == "https://www.speedscope.app/file-format-schema.json"
    frames = data["shared"]["frames"]
    assert all(isinstance(f["name"], str) for f in frames)
    spin_line, call_line = line_of(program, "# SPIN"), line_of(program, "# CALL")
    spin = {i for i, f in enumerate(frames) if f["name"] == "spin [jit]" and f.get("line") == spin_line}
    caller = {i for i, f in enumerate(frames) if f["name"] == "caller" and f.get("line") == call_line}
    module = {i for i, f in enumerate(frames) if f["name"] == "<module>"}
    assert spin and caller and module
    main = data["profiles"][0]
    assert main["type"] == "sampled" and main["unit"] == "seconds"
    assert len(main["samples"]) == len(main["weights"])
    # A jitted sample keeps its Python callers above it: <module> -> caller (line CALL) -> spin [jit].
    nested = [s for s in main["samples"] if s and s[-1] in spin]
    assert nested
    assert all(any(f in caller for f in s[:-1]) and s[0] in module for s in nested)
    # Samples taken while `spin` compiles (its first call, on line CALL): <module> -> caller (line
    # CALL) -> "spin [compile]" on its decorator's line.
    decorator_line = line_of(program, "def spin(") - 1
    compiling = {
        i for i, f in enumerate(frames) if f["name"] == "spin [compile]" and f.get("line") == decorator_line
    }
    assert compiling
    in_compile = [s for s in main["samples"] if s and s[-1] in compiling]
    assert in_compile and all(any(f in caller for f in s[:-1]) and s[0] in module for s in in_compile)


def test_profiler_killed_leaves_no_process(tmp_path: Path) -> None:
    program = PROGRAMS / "crash.py"
    profiler = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pyserver",
            "profile",
            "--out",
            str(tmp_path / "p.txt"),
            "--",
            sys.executable,
            str(program),
            "100000",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert profiler.stdout is not None
    pid = int(profiler.stdout.readline())
    time.sleep(1.0)
    profiler.send_signal(signal.SIGTERM)
    profiler.wait(timeout=120)
    deadline = time.monotonic() + 10
    while not process_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert process_gone(pid)
    assert profiler.returncode == 128 + signal.SIGTERM


def _check_schema(value: Any, schema: dict[str, Any], definitions: dict[str, Any], where: str = "$") -> None:
    """The subset of JSON Schema that speedscope's file-format schema uses: $ref, type, const, enum,
    required, properties, items, anyOf/oneOf."""
    if "$ref" in schema:
        schema = definitions[schema["$ref"].split("/")[-1]]
    if "anyOf" in schema or "oneOf" in schema:
        options = schema.get("anyOf") or schema["oneOf"]
        errors = []
        for option in options:
            try:
                _check_schema(value, option, definitions, where)
                return
            except AssertionError as exc:
                errors.append(str(exc))
        raise AssertionError(f"{where}: matches none of {len(options)} options: {errors}")
    kinds = {
        "string": str,
        "number": (int, float),
        "integer": int,
        "array": list,
        "object": dict,
        "boolean": bool,
    }
    if "type" in schema:
        assert isinstance(value, kinds[schema["type"]]), f"{where}: {value!r} is not {schema['type']}"
    if "const" in schema:
        assert value == schema["const"], f"{where}: {value!r} != {schema['const']!r}"
    if "enum" in schema:
        assert value in schema["enum"], f"{where}: {value!r} not in {schema['enum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            assert key in value, f"{where}: {key} is required"
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                _check_schema(value[key], sub, definitions, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value[:200]):
            _check_schema(item, schema["items"], definitions, f"{where}[{index}]")


def test_speedscope_output_follows_speedscopes_schema(tmp_path: Path) -> None:
    import json

    import pytest

    schema_path = ROOT / "node_modules" / "speedscope" / "dist" / "release" / "file-format-schema.json"
    if not schema_path.exists():
        pytest.skip("speedscope's npm package is not installed (npm ci)")
    schema = json.loads(schema_path.read_text())
    data, proc = run_profile(tmp_path, PROGRAMS / "crash.py", "3", fmt="speedscope")
    assert data is not None, proc.stderr[-2000:]
    _check_schema(data, {"$ref": schema["$ref"]}, schema["definitions"])
    frame_count = len(data["shared"]["frames"])
    for profile in data["profiles"]:
        assert all(0 <= index < frame_count for sample in profile["samples"] for index in sample)


def test_forked_child_is_profiled_too(tmp_path: Path) -> None:
    program = PROGRAMS / "forks.py"
    data, proc = run_profile(tmp_path, program, "15")
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = {(e["line"], e["function"]) for e in data["lines"] if e["path"] == str(program) and e["jitted"]}
    assert (line_of(program, "# PARENT"), "parent_loop") in lines
    assert (line_of(program, "# CHILD"), "child_loop") in lines
    assert len({t["pid"] for t in data["threads"]}) == 2


def test_profiler_killed_outright_takes_the_program_with_it(tmp_path: Path) -> None:
    program = PROGRAMS / "crash.py"
    profiler = subprocess.Popen(
        [sys.executable, "-m", "pyserver", "profile", "--", sys.executable, str(program), "100000"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert profiler.stdout is not None
    pid = int(profiler.stdout.readline())
    profiler.kill()  # SIGKILL: no handler runs in the profiler
    profiler.wait(timeout=60)
    deadline = time.monotonic() + 10
    while not process_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert process_gone(pid)
