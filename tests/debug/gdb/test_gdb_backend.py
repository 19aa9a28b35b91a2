"""The gdb back end against real gdb and a real Numba program."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyserver.debug.gdb.backend import GdbBackend, MIRecord
from pyserver.debug.gdb.mi_protocol import GdbCommandError

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"


def test_token_matched_commands_and_errors() -> None:
    gdb = GdbBackend("gdb")
    try:
        version = gdb.execute_console("show version")
        assert "GNU gdb" in version
        assert gdb.execute("-gdb-set confirm off") == {}
        with pytest.raises(GdbCommandError) as err:
            gdb.execute("-no-such-command")
        assert "no-such-command" in err.value.message or "Undefined" in err.value.message
        # The back end still works after an error.
        assert gdb.execute("-gdb-show confirm")["value"] == "off"
    finally:
        gdb.close()
    assert gdb.process.poll() is not None
    with pytest.raises(GdbCommandError):
        gdb.execute("-gdb-version")


def test_pending_breakpoint_in_jitted_code_resolves_and_stops(gdb_at_line) -> None:
    program = PROGRAMS / "kernels.py"
    stopped = gdb_at_line(program, 16)
    assert stopped.stop["reason"] == "breakpoint-hit"
    frame = stopped.stop["frame"]
    assert "walk" in frame["func"] and frame["line"] == "16"
    frames = stopped.gdb.execute("-stack-list-frames")["stack"]
    assert frames[1]["func"].startswith("cpython::")
    names = {v["name"] for v in stopped.gdb.execute("-stack-list-variables --all-values")["variables"]}
    assert {"a", "n", "total", "i", "x"} <= names


def test_replies_are_matched_by_token_across_threads() -> None:
    """Commands from several threads at once each get their own answer."""
    import threading

    gdb = GdbBackend("gdb")
    results: dict[int, str] = {}
    errors: list[BaseException] = []

    def worker(base: int) -> None:
        try:
            for n in range(base, base + 25):
                results[n] = gdb.execute(f"-data-evaluate-expression {n}*3")["value"]
        except BaseException as exc:  # reported below
            errors.append(exc)

    try:
        threads = [threading.Thread(target=worker, args=(k * 100,)) for k in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        gdb.close()
    assert not errors
    assert results == {n: str(n * 3) for k in range(4) for n in range(k * 100, k * 100 + 25)}


def test_async_records_reach_listeners_in_order() -> None:
    import threading

    gdb = GdbBackend("gdb")
    changed: list[str] = []
    exited = threading.Event()

    def listener(record: MIRecord) -> None:
        if record.message == "cmd-param-changed":
            changed.append(record.payload["param"])
        elif record.message == "gdb-exited":
            exited.set()

    gdb.add_listener(listener)
    try:
        gdb.execute_console("set print thread-events off")
        gdb.execute_console("set print inferior-events off")
        gdb.execute_console("set max-completions 7")
    finally:
        gdb.close()
    assert exited.wait(30)
    assert changed == ["print thread-events", "print inferior-events", "max-completions"]
