"""Debug adapter benchmark (make bench): launch -> first jitted breakpoint through the adapter against
plain gdb doing the same launch/break/run, in the same run on the same program; then the p50 latency of
stackTrace and scopes+variables in a jitted frame. Prints figures only (goals: launch <= 1.1x
gdb by hand; stackTrace + scopes + variables p50 <= 15 ms)."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "debug"))
sys.path.insert(0, str(ROOT))

from dapclient import DapClient  # noqa: E402

PROGRAM = """
import numpy as np
from numba import njit


@njit(debug=True)
def walk(a, n):
    total = 0.0
    for i in range(n):
        x = a[i]
        total += x * 2.0
    return total


def main():
    a = np.arange(1.0, 101.0)
    print("walk:", walk(a, 100))


if __name__ == "__main__":
    main()
"""
BREAK_LINE = 11  # total += x * 2.0
ROUNDS = int(os.environ.get("BENCH_DAP_ROUNDS", "5"))
LATENCY_STOPS = 20


def gdb_by_hand(program: Path) -> float:
    """Plain gdb: load python, pending breakpoint in the jitted function, run; time to the stop."""
    env = {**os.environ, "NUMBA_DEBUGINFO": "1", "NUMBA_OPT": "0"}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [
            "gdb", "-nx", "-q", "-batch",
            "-ex", "set breakpoint pending on",
            "-ex", f"break {program}:{BREAK_LINE}",
            "-ex", "run",
            "-ex", "kill",
            "--args", sys.executable, str(program),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    elapsed = None
    for line in proc.stdout:
        if re.search(r"Breakpoint 1, .*walk", line):
            elapsed = time.perf_counter() - started
            break
    proc.stdout.read()
    proc.wait(120)
    if elapsed is None:
        raise RuntimeError("gdb did not stop at the breakpoint")
    return elapsed


def adapter_launch(program: Path) -> float:
    started = time.perf_counter()
    client = DapClient()
    try:
        launch = client.start(program, breakpoints={BREAK_LINE: {}})
        if not launch["success"]:
            raise RuntimeError(launch.get("message"))
        client.stopped()
        return time.perf_counter() - started
    finally:
        client.close()


def launch_split(program: Path, log_path: Path) -> dict[str, float]:
    """Where one launch's time goes (a separate run, with the adapter's log on: not one of the compared
    runs). Seconds from the client's start: the adapter is up (its log starts); gdb runs the program;
    debugpy in it is connected; configurationDone reaches debugpy; gdb stops at the breakpoint."""
    started = time.perf_counter()
    client = DapClient(log_path=str(log_path))
    try:
        client.start(program, breakpoints={BREAK_LINE: {}})
        client.stopped()
        total = time.perf_counter() - started
    finally:
        client.close()
    marks = {
        "gdb runs the program": "-exec-run",
        "debugpy connected": "debugpy <- initialize",
        "configurationDone": "debugpy <- configurationDone",
        "jitted stop": '*stopped,reason="breakpoint-hit"',
    }
    times: dict[str, float] = {}
    for line in log_path.read_text().splitlines():
        stamp, _, text = line.strip().partition(" ")
        for name, needle in marks.items():
            if name not in times and needle in text:
                times[name] = float(stamp)
    # The log's clock starts when the adapter is up: shift it by the stop as the client saw it.
    shift = total - times.get("jitted stop", total)
    return {"adapter up": shift, **{name: value + shift for name, value in times.items()}}


def latencies(program: Path) -> tuple[list[float], list[float]]:
    client = DapClient()
    stack_ms: list[float] = []
    variables_ms: list[float] = []
    try:
        client.start(program, breakpoints={BREAK_LINE: {}})
        thread = client.stopped()["threadId"]
        client.ok("setBreakpoints", {"source": {"path": str(program)}, "breakpoints": []})
        for _ in range(LATENCY_STOPS):
            t0 = time.perf_counter()
            frames = client.ok("stackTrace", {"threadId": thread, "startFrame": 0, "levels": 20})[
                "stackFrames"
            ]
            t1 = time.perf_counter()
            scopes = client.ok("scopes", {"frameId": frames[0]["id"]})["scopes"]
            for scope in scopes:
                client.ok("variables", {"variablesReference": scope["variablesReference"]})
            t2 = time.perf_counter()
            stack_ms.append((t1 - t0) * 1000)
            variables_ms.append((t2 - t1) * 1000)
            client.ok("next", {"threadId": thread})
            client.stopped()
    finally:
        client.close()
    return stack_ms, variables_ms


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp) / "bench_walk.py"
        program.write_text(PROGRAM)
        by_hand: list[float] = []
        through_adapter: list[float] = []
        for _ in range(ROUNDS):  # interleaved, so load on the machine hits both alike
            by_hand.append(gdb_by_hand(program))
            through_adapter.append(adapter_launch(program))
        hand, adapter = statistics.median(by_hand), statistics.median(through_adapter)
        pairs = statistics.median(a / h for a, h in zip(through_adapter, by_hand, strict=True))
        print(f"launch -> first jitted breakpoint: adapter {adapter:.2f} s, gdb by hand {hand:.2f} s")
        print(
            f"   ratio adapter / gdb by hand: {pairs:.2f}x (goal <= 1.0x; median of {ROUNDS} alternated pairs)"
        )
        split = launch_split(program, Path(tmp) / "adapter.log")
        print(
            "   one launch, seconds from the client's start: "
            + ", ".join(f"{k} {v:.2f}" for k, v in split.items())
        )
        stack_ms, variables_ms = latencies(program)
        print(
            f"stackTrace in a jitted frame: p50 {statistics.median(stack_ms):.1f} ms, "
            f"max {max(stack_ms):.1f} ms ({len(stack_ms)} stops)"
        )
        print(
            f"scopes + variables in a jitted frame: p50 {statistics.median(variables_ms):.1f} ms, "
            f"max {max(variables_ms):.1f} ms"
        )
        together = [a + b for a, b in zip(stack_ms, variables_ms, strict=True)]
        print(
            f"stackTrace + scopes + variables: p50 {statistics.median(together):.1f} ms (goal p50 <= 15 ms)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
