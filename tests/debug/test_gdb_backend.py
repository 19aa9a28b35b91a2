"""The gdb back end against real gdb and a real Numba program."""

from __future__ import annotations

from pathlib import Path

import pytest

from pyserver.debug.gdb.backend import GdbBackend
from pyserver.debug.gdb.mi_protocol import GdbCommandError

PROGRAMS = Path(__file__).resolve().parent / "programs"


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
