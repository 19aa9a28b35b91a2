"""`python -m pyserver profile [--rate HZ] [--format text|json|speedscope] [--out FILE] -- COMMAND ...`.

Runs COMMAND as a child with the profiling hook on PYTHONPATH (which gives jitted code line tables and
nothing else: the code is the one that runs without the profiler), samples every running thread of it (and of the processes it forks) from this
process, and writes the profile: text to standard output by default. Exits with COMMAND's exit code;
the profile is written even when the program crashes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HOOK_DIR = Path(__file__).resolve().parent / "hook"
PACKAGE_PARENT = Path(__file__).resolve().parent.parent.parent


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pyserver.profile import DEFAULT_RATE_HZ

    parser.add_argument(
        "--rate",
        type=float,
        default=DEFAULT_RATE_HZ,
        metavar="HZ",
        help="samples per second per thread (default %(default)g)",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "speedscope"),
        default="text",
        help="output format (default text)",
    )
    parser.add_argument(
        "--out", default=None, metavar="FILE", help="write the profile here (default: standard output)"
    )
    parser.add_argument(
        "--speedscope",
        default=None,
        metavar="FILE",
        help="also write the profile in speedscope's format to FILE (the editor's flame graph reads it)",
    )
    parser.add_argument(
        "--every-worker",
        action="store_true",
        help="stop every running worker thread of a parallel region at each tick (exact counts, more cost) "
        "instead of one, at random, counted for all of them",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]")


def profiling_environment(folder: str, base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HOOK_DIR), env.get("PYTHONPATH", "")) if p)
    env["NUMBA_LENS_PROFILE_DIR"] = folder
    env["NUMBA_LENS_PYSERVER_PATH"] = str(PACKAGE_PARENT)
    # Line tables unless the user turned Numba's debug info off explicitly.
    env.setdefault("NUMBA_LENS_LINE_TABLES", "0" if env.get("NUMBA_DEBUGINFO") == "0" else "1")
    return env


def _die_with_parent() -> None:
    """In the child, before exec: SIGKILL when the profiler dies, even of SIGKILL (no orphan)."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)


def _exit_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1


def run(args: argparse.Namespace) -> int:
    from pyserver.profile.ptrace import supported

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        print(
            "pyserver profile: give a command after --, e.g. `python -m pyserver profile -- python script.py`",
            file=sys.stderr,
        )
        return 2
    if args.rate <= 0 or args.rate > 10_000:
        print("pyserver profile: --rate must be in (0, 10000]", file=sys.stderr)
        return 2
    reason = supported()
    if reason is not None:
        print(f"pyserver profile: unavailable here: {reason}", file=sys.stderr)
        return 2
    folder = tempfile.mkdtemp(prefix="numba-lens-profile-")
    try:
        try:
            child = subprocess.Popen(command, env=profiling_environment(folder), preexec_fn=_die_with_parent)
        except FileNotFoundError:
            print(f"pyserver profile: command not found: {command[0]}", file=sys.stderr)
            return 2
        started = time.monotonic()
        # Imported while the program starts: the program does not wait for them.
        from pyserver.profile import formats, report
        from pyserver.profile.jitmap import JitMap
        from pyserver.profile.sampler import Sampler

        sampler = Sampler(child.pid, folder, args.rate, every_worker=args.every_worker)
        jitmap = JitMap(folder)
        # Line tables are read while the program runs (on another core, mostly): less left for the end.
        stop_reading = threading.Event()
        sampled: set[int] = set()
        counted = [0]

        def sampled_so_far() -> set[int]:
            # Only the objects that samples landed in need their line tables.
            samples = sampler.samples[counted[0] :]
            counted[0] += len(samples)
            sampled.update(report.sampled_addresses(samples))
            return sampled

        reader = threading.Thread(
            target=jitmap.prepare_lines, args=(stop_reading, sampled_so_far), daemon=True
        )
        reader.start()
        try:
            status = _sample_until_exit(child, sampler)
        finally:
            stop_reading.set()
            reader.join()
        duration = time.monotonic() - started
        sampler.finish()
        report_started = time.monotonic()
        profile, resolved = report.build(sampler, jitmap, os.getcwd(), duration, args.rate)
        profile["report_s"] = round(time.monotonic() - report_started, 6)  # after the program ended
        code = _exit_code(status)
        profile["command"] = command
        profile["exit_code"] = code
        if args.format == "json":
            output = json.dumps(profile, indent=1) + "\n"
        elif args.format == "speedscope":
            output = json.dumps(formats.speedscope(profile, resolved, " ".join(command))) + "\n"
        else:
            output = formats.text(profile)
            if code:
                output += f"\nthe program exited with code {code}\n"
        if args.speedscope:
            flame = formats.speedscope(profile, resolved, " ".join(command))
            Path(args.speedscope).write_text(json.dumps(flame) + "\n", encoding="utf-8")
        if args.out:
            Path(args.out).write_text(output, encoding="utf-8")
        else:
            sys.stdout.write(output)
        return code
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _sample_until_exit(child: subprocess.Popen[bytes], sampler: object) -> int:
    """Sample until the child ends; returns its wait status. Ctrl-C and SIGTERM reach the child too (the
    same process group / forwarded), and the child never outlives the profiler."""
    from pyserver.profile.sampler import Sampler

    assert isinstance(sampler, Sampler)
    ended: list[int] = []

    def running() -> bool:
        if sampler.exit_status is not None:
            return False
        try:
            pid, status = os.waitpid(child.pid, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid:
            ended.append(status)
            return False
        return True

    previous = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGTERM))
    try:
        try:
            sampler.run(running)
        except KeyboardInterrupt:
            # Ctrl-C reached the program too (same process group): let it end, then report.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and running():
                time.sleep(0.05)
            if not ended and sampler.exit_status is None:
                child.kill()
        if sampler.exit_status is not None:
            return sampler.exit_status
        if ended:
            return ended[0]
        _, status = os.waitpid(child.pid, 0)
        return status
    except BaseException:
        child.kill()
        try:
            os.waitpid(child.pid, 0)
        except ChildProcessError:
            pass
        raise
    finally:
        child.returncode = 0  # reaped here: keep Popen from waiting on a pid that may be reused
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)
