"""`python -m pyserver doctor`: what is installed, and whether jitted code can be debugged here.

Every check runs for real (gdb is started, a child process is attached to); nothing is assumed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from importlib import metadata

from pyserver.gdb_install import InstallError, gdb_version, install_gdb, resolve_gdb
from pyserver.versions import (
    gdb_calls_functions,
    gdb_calls_no_functions_text,
    gdb_that_calls_functions_hint,
    gdb_usable,
    install_command,
    numba_verdict,
)

PACKAGES = ("numba", "llvmlite", "numpy", "pygls", "lsprotocol", "debugpy", "pygdbmi")
GDB_TIMEOUT_S = 20.0


@dataclass
class Check:
    name: str
    status: str  # "ok" | "warning" | "error"
    detail: str
    fix: str = ""


@dataclass
class Report:
    python: str
    executable: str
    packages: dict[str, str | None] = field(default_factory=dict)
    gdb_path: str | None = None
    gdb_version: str | None = None
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.status != "error" for c in self.checks)


def package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def parse_version(text: str) -> tuple[int, ...]:
    match = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not match:
        return ()
    return tuple(int(g) for g in match.groups() if g is not None)


def gdb_version_check(version: str | None, gdb: str) -> Check:
    if version is None:
        return Check(
            "gdb",
            "error",
            f"gdb not found or not runnable ('{gdb}')",
            "Run `python -m pyserver doctor --fix` (installs gdb from PyPI for this Python), or install gdb "
            "(Debian/Ubuntu: sudo apt-get install gdb), or set 'gdbPath' in launch.json.",
        )
    major = parse_version(version)[:1]
    if major == (15,):
        return Check(
            "gdb",
            "warning",
            f"gdb {version} cannot see Numba's jitted code (fixed in gdb 16)",
            "Run `python -m pyserver doctor --fix` (installs gdb 18 from PyPI for this Python), or use gdb "
            "13/14 or 16+ ('gdbPath'); Python-only debugging still works.",
        )
    if not gdb_calls_functions(version):
        return Check(
            "gdb",
            "warning",
            gdb_calls_no_functions_text(version),
            gdb_that_calls_functions_hint() + ".",
        )
    return Check("gdb", "ok", f"gdb {version}")


def gdb_python_check(gdb: str) -> Check:
    """Numba's pretty-printers and CPython's frame decoding need gdb built with Python."""
    try:
        out = subprocess.run(
            [gdb, "-nx", "-batch", "-ex", "python import sys; print('PYOK', sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=GDB_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("gdb python", "error", f"could not run gdb: {exc}")
    if "PYOK" in out.stdout:
        return Check("gdb python", "ok", "gdb has Python scripting " + out.stdout.split("PYOK", 1)[1].strip())
    return Check(
        "gdb python",
        "warning",
        "gdb has no Python scripting: Numba value printers and Python frames in gdb are unavailable",
        "Install a gdb built with Python (Debian's gdb package is).",
    )


def ptrace_scope() -> int | None:
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as fh:
            return int(fh.read().strip())
    except (OSError, ValueError):
        return None


def gdb_attach_check(gdb: str) -> Check:
    """Attach gdb to a sleeping child of ours: the same rights the adapter's launch and attach need."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        out = subprocess.run(
            [gdb, "-nx", "-batch", "-p", str(child.pid), "-ex", "info inferiors", "-ex", "detach"],
            capture_output=True,
            text=True,
            timeout=GDB_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("ptrace", "error", f"gdb did not attach: {exc}")
    finally:
        child.kill()
        child.wait()
    text = out.stdout + out.stderr
    if "Operation not permitted" in text or "ptrace:" in text:
        scope = ptrace_scope()
        fix = "Allow ptrace: run the program under the debugger (launch) instead of attaching"
        if scope and scope > 0:
            fix += f"; or as root: echo 0 > /proc/sys/kernel/yama/ptrace_scope (now {scope})"
        fix += "; in a container add --cap-add=SYS_PTRACE."
        return Check("ptrace", "error", "gdb may not attach to or trace processes here", fix)
    if f"process {child.pid}" in text or "Attaching to" in text or "Detaching from" in text:
        return Check("ptrace", "ok", "gdb can attach to and trace a process here")
    return Check("ptrace", "warning", "could not confirm that gdb attached: " + text.strip()[-300:])


def numba_check(version: str | None) -> Check:
    verdict = numba_verdict(version)
    if verdict.status == "ok":
        return Check("numba", "ok", verdict.message)
    if verdict.status == "newer":
        return Check("numba", "warning", verdict.message, install_command(sys.executable))  # the tested range
    return Check("numba", "error", verdict.message, verdict.fix)


def python_checks() -> list[Check]:
    checks = []
    if sys.version_info >= (3, 12):
        checks.append(
            Check(
                "python",
                "warning",
                "Python >= 3.12: debugging Numba under debugpy needs NUMBA_ENABLE_SYS_MONITORING=0",
                "The debug adapter sets it for you; set it yourself when running debugpy by hand.",
            )
        )
    else:
        checks.append(Check("python", "ok", f"Python {sys.version.split()[0]}"))
    return checks


def collect(gdb: str | None = None) -> Report:
    gdb = resolve_gdb(gdb)
    report = Report(python=sys.version.split()[0], executable=sys.executable)
    report.packages = {name: package_version(name) for name in PACKAGES}
    report.checks.extend(python_checks())
    report.checks.append(numba_check(report.packages["numba"]))
    for name in ("pygls", "debugpy", "pygdbmi"):
        if report.packages[name] is None:
            report.checks.append(
                Check(name, "error", f"{name} is not installed", f"{sys.executable} -m pip install {name}")
            )
    report.gdb_path = shutil.which(gdb) if os.path.sep not in gdb else (gdb if os.path.exists(gdb) else None)
    report.gdb_version = gdb_version(gdb) if report.gdb_path else None
    report.checks.append(gdb_version_check(report.gdb_version, gdb))
    if report.gdb_version is not None:
        report.checks.append(gdb_python_check(gdb))
        report.checks.append(gdb_attach_check(gdb))
    return report


def format_text(report: Report) -> str:
    lines = [
        "Numba Lens doctor",
        f"  python     {report.python} ({report.executable})",
    ]
    for name, version in report.packages.items():
        lines.append(f"  {name:<10} {version or 'not installed'}")
    lines.append(
        f"  {'gdb':<10} {report.gdb_version or 'not found'}"
        + (f" ({report.gdb_path})" if report.gdb_path else "")
    )
    lines.append("")
    marks = {"ok": "ok  ", "warning": "WARN", "error": "FAIL"}
    for check in report.checks:
        lines.append(f"[{marks[check.status]}] {check.name}: {check.detail}")
        if check.fix and check.status != "ok":
            lines.append(f"       fix: {check.fix}")
    lines.append("")
    lines.append("All checks passed." if report.ok else "Some checks failed: see 'fix' above.")
    return "\n".join(lines)


def gdb_needs_fix(report: Report) -> bool:
    """No gdb, or one that cannot see jitted code (15.x) or call functions in the program (older than 16
    on a CPU with AMX)."""
    return report.gdb_path is None or not gdb_usable(report.gdb_version)


def fix(report: Report, into_environment: bool, out: list[str]) -> Report:
    """Install a gdb that can see jitted code when the report needs one; the report again afterwards."""
    if not gdb_needs_fix(report):
        out.append(f"doctor --fix: gdb {report.gdb_version} can see jitted code; nothing to install.")
        return report
    out.append(
        "doctor --fix: installing gdb from PyPI (gdb-for-pwndbg) "
        + ("into this environment" if into_environment else "into Numba Lens's gdb folder")
        + "…"
    )
    try:
        installed = install_gdb(into_environment=into_environment)
    except InstallError as exc:
        out.append(f"doctor --fix: {exc}")
        report.checks.append(Check("gdb install", "error", str(exc)))
        return report
    out.append(
        f"doctor --fix: installed gdb {installed.version} at {installed.gdb}; the debugger now uses it."
    )
    return collect(None)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--gdb", default=None, help="gdb executable to check (default: the one the debugger would use)"
    )
    parser.add_argument(
        "--fix",
        action="store_true",
        help="when gdb is missing, cannot see jitted code (15.x) or cannot call functions in the program "
        "(older than 16 on a CPU with AMX), install gdb-for-pwndbg for this Python",
    )
    parser.add_argument(
        "--into-environment",
        action="store_true",
        help="with --fix: install into this interpreter's environment instead of Numba Lens's gdb folder "
        "($NUMBA_LENS_GDB_HOME, default ~/.local/share/numba-lens/gdb)",
    )


def run(args: argparse.Namespace) -> int:
    report = collect(args.gdb)
    if getattr(args, "fix", False):
        notes: list[str] = []
        report = fix(report, bool(args.into_environment), notes)
        print("\n".join(notes), file=sys.stderr if args.json else sys.stdout)
    if args.json:
        data = asdict(report)
        data["ok"] = report.ok
        print(json.dumps(data, indent=2))
    else:
        print(format_text(report))
    return 0 if report.ok else 1
