"""Ending `python -m pyserver record` ends the program it runs: SIGTERM, SIGINT and SIGHUP (what a
closing terminal sends) are forwarded to the program's process group, a program that ignores them is
killed after a grace period, and a SIGKILL of record takes its child along (PR_SET_PDEATHSIG). Each
test counts the processes of the program, found by a marker in their command line."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from pyserver.record.child import GRACE_S

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups, prctl")

# A program that starts a child of its own (when asked), says it is ready, and sleeps.
PROGRAM = """
import pathlib, signal, subprocess, sys, time

marker, ready, mode = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
if mode == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "with-child":
    subprocess.Popen([sys.executable, __file__, marker, str(ready) + ".child", "plain"])
    while not pathlib.Path(str(ready) + ".child").exists():
        time.sleep(0.02)
ready.write_text("ready")
time.sleep(60)
"""


def census(marker: str) -> list[psutil.Process]:
    """The live processes of the program: those whose command line holds `marker` after the program's
    name (record's own holds it after `--`)."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        try:
            cmdline = process.info["cmdline"] or []
            if (
                process.info["status"] != psutil.STATUS_ZOMBIE
                and marker in cmdline
                and "record" not in cmdline
            ):
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def wait_until(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def start_record(tmp_path: Path, mode: str) -> tuple[subprocess.Popen[bytes], str]:
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    marker = f"record-signal-{uuid.uuid4().hex}"
    ready = tmp_path / "ready"
    record = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pyserver",
            "record",
            "--",
            sys.executable,
            str(script),
            marker,
            str(ready),
            mode,
        ],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    try:
        wait_until(ready.exists, 60, "the program to start")
    except AssertionError:
        record.kill()
        raise
    return record, marker


def end_all(marker: str) -> None:
    for process in census(marker):
        try:
            process.kill()
        except psutil.NoSuchProcess:
            pass


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_to_record_ends_the_program_and_its_children(tmp_path: Path, signum: signal.Signals) -> None:
    record, marker = start_record(tmp_path, "with-child")
    try:
        assert len(census(marker)) == 2  # the program and its child
        record.send_signal(signum)
        assert record.wait(timeout=GRACE_S + 30) == 128 + signum
        wait_until(lambda: census(marker) == [], 10, "no process of the program")
    finally:
        record.kill()
        end_all(marker)


def test_a_program_that_ignores_sigterm_is_killed_after_the_grace_period(tmp_path: Path) -> None:
    record, marker = start_record(tmp_path, "ignore-term")
    try:
        started = time.monotonic()
        record.send_signal(signal.SIGTERM)
        assert record.wait(timeout=GRACE_S + 30) == 128 + signal.SIGTERM
        assert time.monotonic() - started >= GRACE_S - 0.5
        wait_until(lambda: census(marker) == [], 10, "no process of the program")
    finally:
        record.kill()
        end_all(marker)


def test_sigkill_of_record_takes_the_program_along(tmp_path: Path) -> None:
    record, marker = start_record(tmp_path, "plain")
    try:
        record.kill()
        record.wait(timeout=30)
        wait_until(lambda: census(marker) == [], 10, "no process of the program")
    finally:
        end_all(marker)


def test_a_program_that_ends_by_a_signal_gives_128_plus_its_number(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyserver",
            "record",
            "--",
            sys.executable,
            "-c",
            "import os; os.kill(os.getpid(), 15)",
        ],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 128 + signal.SIGTERM
