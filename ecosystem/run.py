"""The ecosystem check: Numba Lens against what Numba really compiles, on code nobody here wrote.

    python ecosystem/run.py [--packages NAME,...] [--no-scripts] [--scripts-from DIR] [--no-packages] [--strict]

Runs in the ecosystem venv (`make ecosystem` builds it: ecosystem/venv.sh). For each package of
ecosystem/packages.txt, and for the scripts of ecosystem/scripts/ as a whole:

1. copies its source to .make/ecosystem/work/NAME/src/ (the folder a user would open);
2. runs its workload (workloads/use_MODULE.py; a script runs itself) under `pyserver record`, through
   truth.py, which dumps what Numba compiled: signatures and per-variable typemaps;
3. runs `check --format json --variables` on the source twice: at first sight (no recording) and
   after record (with the recorded signatures);
4. times Numba compiling the signatures `check` typed: truth.py again, in a fresh process with an empty
   cache and no recording, importing every module `check` analysed (their explicit signatures compile
   at import), then compiling each signature check showed from its encoded argument types
   (same_signatures.py; a script runs first, its functions exist once it ran); what it could not
   compile is counted and listed;
5. compares (compare.py) and prints one row per package and script, the total, the differences and
   the goals. Exit 1 when a goal fails (with --strict, also when a workload fails).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare import Figures, compare, error_files

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = REPO / ".make" / "ecosystem" / "work"
PY = sys.executable
SHOWN_DIFFERENCES = 12  # per row on stdout; all of them go to differences.txt


@dataclass
class Package:
    requirement: str  # name==version
    module: str  # import name; the workload is workloads/use_<module>.py


@dataclass
class Row:
    name: str
    version: str
    figures: Figures
    status: str  # the workload's (or script's) own run: "ok", or why it failed


def read_packages(path: Path = HERE / "packages.txt") -> list[Package]:
    packages = []
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            requirement, module = line.split()
            packages.append(Package(requirement, module))
    return packages


def _env(pythonpath: list[Path], cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "NUMBA_LENS"))}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in [*pythonpath, REPO])
    env["NUMBA_CACHE_DIR"] = str(cache)  # empty: nothing loads from a cache, every compile is timed
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def timed(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> tuple[int, str, str, float, float]:
    """rc, stdout, stderr, wall seconds, peak resident MB of the process and its descendants (wait4)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=err, text=True)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                child.kill()
                pid, status, usage = os.wait4(child.pid, 0)
                break
            time.sleep(0.05)
        child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        return child.returncode, out.read(), err.read(), seconds, usage.ru_maxrss / 1024


# check's time-out per file: its default, what a user gets, unless --check-timeout says otherwise (a run
# on a machine loaded by other jobs, where a time-out would measure the load, not the analysis).
DEFAULT_CHECK_TIMEOUT_S = 20.0


def check(
    src: Path, targets: list[Path], env: dict[str, str], signatures: Path | None, timeout_s: float
) -> tuple[dict[str, Any], float, float]:
    command = [PY, "-m", "pyserver", "check", "--format", "json", "--variables", "--root", str(src)]
    command += ["--timeout", str(timeout_s)]
    if signatures is not None and signatures.is_file():
        command += ["--signatures", str(signatures)]
    command += [str(t) for t in targets]
    rc, out, err, seconds, peak = timed(command, src, env, timeout=1800)
    try:
        return json.loads(out), seconds, peak
    except json.JSONDecodeError:
        print(f"  check failed (exit {rc}): {err.strip()[-500:]}", file=sys.stderr)
        return {}, seconds, peak


def record_truth(
    src: Path, root: Path, program: Path, out: Path, signatures: Path, env: dict[str, str]
) -> dict[str, Any]:
    command = [PY, "-m", "pyserver", "record", "--signatures", str(signatures), "--"]
    command += [PY, str(HERE / "truth.py"), str(src), str(root), str(out), str(program)]
    rc, _out, err, _seconds, _peak = timed(command, src, env, timeout=900)
    if not out.is_file():
        return {
            "status": f"failed (exit {rc}): {err.strip()[-300:]}",
            "functions": [],
            "numba_compile_s": 0.0,
        }
    truth: dict[str, Any] = json.loads(out.read_text())
    return truth


def numba_same(
    src: Path,
    root: Path,
    program: Path,
    modules: list[str],
    typed: list[dict[str, Any]],
    out: Path,
    env: dict[str, str],
) -> dict[str, Any]:
    """Numba compiling the signatures check typed (`typed`: wanted_signatures()): a fresh process, an empty
    cache, no recording. A package's modules are imported (their explicit signatures compile then), then
    each signature compiles; a script runs first (its functions exist once it ran), so its reference
    also holds what it compiles itself."""
    cache = out.with_suffix(".cache")
    shutil.rmtree(cache, ignore_errors=True)
    wanted = out.with_suffix(".wanted.json")
    wanted.write_text(json.dumps(typed))
    env = dict(
        env, NUMBA_CACHE_DIR=str(cache), ECO_IMPORT_FIRST=json.dumps(modules), ECO_SIGNATURES=str(wanted)
    )
    if not modules:
        env["ECO_RUN_PROGRAM"] = "1"
    command = [PY, str(HERE / "truth.py"), str(src), str(root), str(out), str(program)]
    timed(command, src, env, timeout=900)
    shutil.rmtree(cache, ignore_errors=True)
    try:
        same: dict[str, Any] = json.loads(out.read_text())
        return same
    except (OSError, json.JSONDecodeError):
        return {"functions": [], "numba_compile_s": 0.0, "numba_compile_cpu_s": 0.0}


def wanted_signatures(result: dict[str, Any], paths: set[str] | None = None) -> list[dict[str, Any]]:
    """Every signature check showed (what typed_signatures counts), with its encoded argument types."""
    return [
        {
            "path": f["path"],
            "qualname": f["name"],
            "line": f["line"],
            "kind": f["kind"],
            "args": "(" + ", ".join(s["args"]) + ")",
            "arg_types": s.get("arg_types"),
            "parallel": (s.get("options") or {}).get("parallel"),
        }
        for f in result.get("functions", [])
        if paths is None or f["path"] in paths
        for s in f["signatures"]
    ]


def module_names(check_result: dict[str, Any]) -> list[str]:
    """The modules (paths relative to the source folder) that check analysed."""
    paths = [f["path"] for f in check_result.get("files", []) if str(f["path"]).endswith(".py")]
    return [p.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for p in paths]


def speed(figures: Figures, after: dict[str, Any], same: dict[str, Any]) -> None:
    """The speed figures of one check (after record) against Numba compiling the same signatures."""
    analysis_times(figures, after)
    reference(figures, same)


def analysis_times(figures: Figures, after: dict[str, Any]) -> None:
    """check's warm analysis: wall, and CPU less the imports of modules from outside the source (timed
    apart by check: its worker imports scipy or scikit-learn as the program does at its start)."""
    timing = after.get("timing") or {}
    figures.analysis_s = float(timing.get("analysis_s") or 0.0)
    figures.import_cpu_s = float(timing.get("third_party_import_cpu_s") or 0.0)
    figures.analysis_cpu_s = max(0.0, float(timing.get("analysis_cpu_s") or 0.0) - figures.import_cpu_s)


def reference(figures: Figures, same: dict[str, Any]) -> None:
    """The numba_same run's times, and how many of check's signatures it compiled (those it could not,
    with why)."""
    figures.numba_same_s = float(same.get("numba_compile_s") or 0.0)
    figures.numba_same_cpu_s = float(same.get("numba_compile_cpu_s") or 0.0)
    figures.numba_front_end_cpu_s = float(same.get("numba_front_end_cpu_s") or 0.0)
    figures.numba_signatures = sum(len(f["signatures"]) for f in same.get("functions", []))
    coverage = same.get("same_signatures") or {}
    figures.same_compiled = int(coverage.get("compiled") or 0)
    figures.same_failed_cpu_s = float(coverage.get("failed_compile_cpu_s") or 0.0)
    figures.same_not_compiled = [
        f"{n['path']}:{n['line']}: {n['qualname']}{n['args']}: {n['reason']}"
        for n in coverage.get("not_compiled", [])
    ]


def typed_signatures(result: dict[str, Any], paths: set[str] | None = None) -> int:
    return sum(
        len(f["signatures"]) for f in result.get("functions", []) if paths is None or f["path"] in paths
    )


def importable(src: Path, paths: list[str], env: dict[str, str]) -> set[str]:
    """The package modules (paths relative to src) that import fine in plain Python."""
    modules = {p: p.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for p in paths}
    probe = (
        "import importlib, json, sys\n"
        "ok = []\n"
        "for path, name in json.loads(sys.argv[1]).items():\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "        ok.append(path)\n"
        "    except BaseException:\n"
        "        pass\n"
        "print(json.dumps(ok))\n"
    )
    _rc, out, _err, _s, _p = timed([PY, "-c", probe, json.dumps(modules)], src, env, timeout=600)
    try:
        return set(json.loads(out.strip().splitlines()[-1]))
    except (json.JSONDecodeError, IndexError):
        return set()


def false_errors(figures: Figures, checks: list[dict[str, Any]], fine: set[str]) -> None:
    lines: dict[str, list[str]] = {}
    for result in checks:
        for path, found in error_files(result).items():
            lines.setdefault(path, [])
            lines[path].extend(line for line in found if line not in lines[path])
    for path, found in sorted(lines.items()):
        if path in fine:
            figures.false_errors += len(found)
            figures.differences.extend(f"false error: {line}" for line in found)


def copy_source(module: str, src: Path) -> Path:
    """Copy the installed package (here, or in the project venv this venv sees) to src."""
    import importlib.util

    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise SystemExit(f"ecosystem: {module} is not installed (make ecosystem installs it)")
    origin = Path(spec.origin)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    if origin.name == "__init__.py":
        shutil.copytree(origin.parent, src / module, ignore=ignore)
        return src / module
    shutil.copy2(origin, src / origin.name)
    return src / origin.name


def run_package(package: Package, check_timeout_s: float) -> Row:
    name, version = package.requirement.split("==")
    work = WORK / name
    shutil.rmtree(work, ignore_errors=True)
    src = work / "src"
    src.mkdir(parents=True)
    target = copy_source(package.module, src)
    env = _env([src], work / "numba-cache")
    signatures = work / "signatures.json"
    truth = record_truth(
        src, target, HERE / "workloads" / f"use_{package.module}.py", work / "truth.json", signatures, env
    )
    first, first_s, first_peak = check(src, [target], env, None, check_timeout_s)
    after, after_s, after_peak = check(src, [target], env, signatures, check_timeout_s)
    figures = compare(truth["functions"], first, after)
    error_paths = sorted(set(error_files(first)) | set(error_files(after)))
    fine = importable(src, error_paths, env) if error_paths else set()
    false_errors(figures, [first, after], fine)
    figures.check_first_s, figures.check_s = first_s, after_s
    figures.numba_compile_s = truth.get("numba_compile_s", 0.0)
    figures.peak_mb = max(first_peak, after_peak)
    same = numba_same(
        src,
        target,
        HERE / "workloads" / f"use_{package.module}.py",
        module_names(after),
        wanted_signatures(after),
        work / "numba-same.json",
        env,
    )
    speed(figures, after, same)
    figures.check_signatures = typed_signatures(after)
    (work / "check-first.json").write_text(json.dumps(first, indent=1))
    (work / "check-after.json").write_text(json.dumps(after, indent=1))
    return Row(name, version, figures, truth.get("status", "?"))


def run_scripts(scripts: list[Path], check_timeout_s: float) -> tuple[list[Row], Figures]:
    """Each script runs (as `__main__`, no arguments) under record; check sees them all at once."""
    work = WORK / "scripts"
    shutil.rmtree(work, ignore_errors=True)
    src = work / "src"
    src.mkdir(parents=True)
    for script in scripts:
        shutil.copy2(script, src / script.name)
    env = _env([src], work / "numba-cache")
    signatures = work / "signatures.json"
    truths = {}
    for script in scripts:
        copy = src / script.name
        truths[script.name] = record_truth(
            src, copy, copy, work / f"truth-{script.stem}.json", signatures, env
        )
        # a script's own output files stay out of the folder that check reads
        for extra in src.iterdir():
            if extra.suffix != ".py" and extra.name != ".numba-lens":
                shutil.rmtree(extra, ignore_errors=True) if extra.is_dir() else extra.unlink()
    targets = [src / s.name for s in scripts]
    first, first_s, first_peak = check(src, targets, env, None, check_timeout_s)
    after, after_s, after_peak = check(src, targets, env, signatures, check_timeout_s)
    (work / "check-first.json").write_text(json.dumps(first, indent=1))
    (work / "check-after.json").write_text(json.dumps(after, indent=1))
    rows = []
    total = Figures()
    for script in scripts:
        truth = truths[script.name]
        figures = compare(truth["functions"], first, after)
        fine = {script.name} if truth.get("status") == "ok" else set()
        false_errors(figures, [first, after], fine)
        figures.numba_compile_s = truth.get("numba_compile_s", 0.0)
        copy = src / script.name
        wanted = wanted_signatures(after, {script.name})
        same = numba_same(src, copy, copy, [], wanted, work / f"numba-same-{script.stem}.json", env)
        reference(figures, same)
        figures.check_signatures = typed_signatures(after, {script.name})
        rows.append(Row(script.name, "script", figures, truth.get("status", "?")))
        total.add(figures)
    # check sees the scripts at once: its time is the total's only
    total.check_first_s, total.check_s = first_s, after_s
    analysis_times(total, after)
    total.peak_mb = max(first_peak, after_peak)
    return rows, total


def _percent(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.0f}%" if whole else "-"


HEADER = (
    f"{'package':<22}{'version':<9}{'compiled':>9}{'found':>7}{'first':>7}{'after':>7}"
    f"{'false err':>10}{'wrong':>7}{'hover=':>8}{'numba/sigs':>11}{'check s':>9}{'warm s':>8}{'numba s':>9}"
    f"{'wall x':>8}{'faster':>8}{'front x':>8}{'limit x':>8}{'peak MB':>9}  run"
)


def ratio(numba: float, ours: float) -> float | None:
    return numba / ours if numba and ours else None


def front_end_limit(f: Figures) -> float | None:
    """Numba's compile over its own front end: what a check typing at Numba's speed, and doing nothing
    else, would reach."""
    return ratio(f.numba_same_cpu_s, f.numba_front_end_cpu_s)


def format_row(name: str, version: str, f: Figures, status: str = "") -> str:
    wall = ratio(f.numba_same_s, f.analysis_s) if f.has_reference else None
    # the goal's ratio: CPU, steady under load
    faster = ratio(f.numba_same_cpu_s, f.analysis_cpu_s) if f.has_reference else None
    wall_text = f"{wall:.1f}x" if wall else "-"
    faster_text = f"{faster:.1f}x" if faster else "-"
    # against Numba's own front end of the same signatures, and what a check typing at that speed reaches
    front = ratio(f.numba_front_end_cpu_s, f.analysis_cpu_s) if f.has_reference else None
    limit = front_end_limit(f) if f.has_reference else None
    front_text = f"{front:.1f}x" if front else "-"
    limit_text = f"{limit:.1f}x" if limit else "-"
    check_s = f"{f.check_s:.1f}" if f.check_s else "-"
    warm_s = f"{f.analysis_s:.1f}" if f.analysis_s else "-"
    sigs = f"{f.same_compiled}/{f.check_signatures}"  # of check's signatures, those Numba compiled
    peak = f"{f.peak_mb:.0f}" if f.peak_mb else "-"
    return (
        f"{name[:21]:<22}{version[:8]:<9}{f.compiled:>9}{f.found:>7}{f.typed_first:>7}{f.typed_after:>7}"
        f"{f.false_errors:>10}{f.wrong_types:>7}{f.hover_equal:>8}{sigs:>11}{check_s:>9}{warm_s:>8}"
        f"{f.numba_same_s:>9.1f}{wall_text:>8}{faster_text:>8}{front_text:>8}{limit_text:>8}{peak:>9}"
        f"  {status[:60]}"
    )


def goals(packages: Figures, scripts: Figures, rows: list[Row]) -> list[tuple[str, str, bool]]:
    everything = Figures()
    everything.add(packages)
    everything.add(scripts)
    out = [
        (
            "0 false errors on every package and script",
            str(everything.false_errors),
            everything.false_errors == 0,
        ),
        (
            "0 wrong types on every package and script",
            str(everything.wrong_types),
            everything.wrong_types == 0,
        ),
        (
            "after record >= 95% of compiled functions typed",
            f"{everything.typed_after}/{everything.compiled} = {_percent(everything.typed_after, everything.compiled)}",
            everything.compiled > 0 and everything.typed_after >= 0.95 * everything.compiled,
        ),
    ]
    if scripts.compiled:
        out.append(
            (
                "at first sight >= 80% of the scripts' compiled functions typed",
                f"{scripts.typed_first}/{scripts.compiled} = {_percent(scripts.typed_first, scripts.compiled)}",
                scripts.typed_first >= 0.8 * scripts.compiled,
            )
        )
    if packages.analysis_cpu_s:
        # A package Numba compiles nothing (or less than half) of has no reference to be faster than;
        # the total counts its analysis all the same.
        slow = [
            f"{r.name} (limit {front_end_limit(r.figures) or 0.0:.1f}x)"
            for r in rows
            if r.version != "script"
            and r.figures.has_reference
            and (ratio(r.figures.numba_same_cpu_s, r.figures.analysis_cpu_s) or 0.0) < 10
        ]
        unmeasured = [
            f"{r.name} ({r.figures.same_compiled} of {r.figures.check_signatures}"
            + (  # the ratio all the same, Numba's side compiling a part of what check typed
                f", {ratio(r.figures.numba_same_cpu_s, r.figures.analysis_cpu_s) or 0.0:.1f}x on those)"
                if r.figures.numba_same_cpu_s
                else ")"
            )
            for r in rows
            if r.version != "script" and not r.figures.has_reference
        ]
        cpu = ratio(packages.numba_same_cpu_s, packages.analysis_cpu_s) or 0.0
        with_imports = (
            ratio(packages.numba_same_cpu_s, packages.analysis_cpu_s + packages.import_cpu_s) or 0.0
        )
        wall = ratio(packages.numba_same_s, packages.analysis_s) or 0.0
        out.append(
            (
                "check of a package >= 10x faster than Numba compiling the same signatures "
                "(the warm worker's analysis vs Numba's compiles, CPU seconds; both without the imports "
                "of third-party modules)",
                f"total {cpu:.1f}x (with the worker's third-party imports {with_imports:.1f}x; wall "
                f"{wall:.1f}x); below 10x: {', '.join(slow) or 'none'}; no reference (Numba's side compiled "
                f"less than half of check's signatures): {', '.join(unmeasured) or 'none'}",
                not slow and cpu >= 10,
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--packages", default=None, help="comma-separated package names (default: all)")
    parser.add_argument("--no-scripts", action="store_true")
    parser.add_argument("--scripts", default=None, help="comma-separated script names (default: all)")
    parser.add_argument(
        "--scripts-from",
        type=Path,
        default=HERE / "scripts",
        help="the folder of scripts to check (default: ecosystem/scripts; any folder of programs nobody here wrote)",
    )
    parser.add_argument("--no-packages", action="store_true")
    parser.add_argument("--report", default=str(REPO / ".make" / "ecosystem" / "report.json"))
    parser.add_argument("--strict", action="store_true", help="also fail when a workload or script fails")
    parser.add_argument(
        "--check-timeout",
        type=float,
        default=DEFAULT_CHECK_TIMEOUT_S,
        help="check's time-out per file in seconds (default 20)",
    )
    args = parser.parse_args(argv)
    if args.check_timeout != DEFAULT_CHECK_TIMEOUT_S:
        print(f"check's time-out per file: {args.check_timeout:g} s (its default, what a user gets, is 20 s)")
    packages = [] if args.no_packages else read_packages()
    if args.packages:
        wanted = set(args.packages.split(","))
        packages = [p for p in packages if p.requirement.split("==")[0] in wanted or p.module in wanted]
    rows: list[Row] = []
    package_total = Figures()
    print(HEADER, flush=True)
    for package in packages:
        row = run_package(package, args.check_timeout)
        rows.append(row)
        package_total.add(row.figures)
        print(format_row(row.name, row.version, row.figures, row.status), flush=True)
    script_total = Figures()
    if not args.no_scripts:
        scripts = sorted(args.scripts_from.glob("*.py"))
        if args.scripts:
            scripts = [
                s for s in scripts if s.name in args.scripts.split(",") or s.stem in args.scripts.split(",")
            ]
        script_rows, script_total = run_scripts(scripts, args.check_timeout)
        for row in script_rows:
            rows.append(row)
            print(format_row(row.name, "", row.figures, row.status), flush=True)
    print("-" * len(HEADER))
    if packages:
        print(format_row(f"packages ({len(packages)})", "", package_total))
    if script_total.compiled or not args.no_scripts:
        print(format_row(f"scripts ({sum(r.version == 'script' for r in rows)})", "", script_total))
    everything = Figures()
    everything.add(package_total)
    everything.add(script_total)
    print(format_row("total", "", everything))
    differences = [(row.name, line) for row in rows for line in row.figures.differences]
    report_path = Path(args.report)
    report_path.parent.mkdir(parents=True, exist_ok=True)
    (report_path.parent / "differences.txt").write_text("".join(f"{n}: {line}\n" for n, line in differences))
    print(f"\nDifferences ({len(differences)}; all in {report_path.parent / 'differences.txt'}):")
    for row in rows:
        for line in row.figures.differences[:SHOWN_DIFFERENCES]:
            print(f"  {row.name}: {line}")
        if len(row.figures.differences) > SHOWN_DIFFERENCES:
            print(f"  {row.name}: ... {len(row.figures.differences) - SHOWN_DIFFERENCES} more")
    print(
        "\nThe speed reference: of the signatures check typed, those Numba compiled (and why not the rest):"
    )
    for row in rows:
        f = row.figures
        failed = (
            f" (its failed compiles, {f.same_failed_cpu_s:.1f} s, not counted)" if f.same_failed_cpu_s else ""
        )
        print(f"  {row.name}: compiled {f.same_compiled} of {f.check_signatures} typed signatures{failed}")
        for line in f.same_not_compiled[:SHOWN_DIFFERENCES]:
            print(f"    not compiled: {line}")
        if len(f.same_not_compiled) > SHOWN_DIFFERENCES:
            print(f"    ... {len(f.same_not_compiled) - SHOWN_DIFFERENCES} more (report.json)")
    results = goals(package_total, script_total, rows)
    print("\nGoals:")
    for text, figure, passed in results:
        print(f"  {'PASS' if passed else 'FAIL'}  {text}: {figure}")
    failed_runs = [r.name for r in rows if r.status != "ok"]
    if failed_runs:
        print(
            f"\nWorkloads or scripts that failed on their own (their truth is partial): {', '.join(failed_runs)}"
        )
    report_path.write_text(
        json.dumps(
            {
                "rows": [
                    {"name": r.name, "version": r.version, "status": r.status, **vars(r.figures)}
                    for r in rows
                ],
                "goals": [{"goal": t, "figure": f, "passed": p} for t, f, p in results],
            },
            indent=1,
        )
    )
    ok = all(passed for _t, _f, passed in results) and not (args.strict and failed_runs)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
