"""Record arguments of jitted functions (tests/debug/programs/record_args.py): Numba's DWARF types them
only as a pointer to N bytes; their type comes from what the debuggee exports while Numba compiles
(pyserver/debug/values/record_arguments.py). Real gdb, debugpy and Numba; the expected values are NumPy's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dapclient import DapClient

from pyserver.debug.values.record_arguments import RecordArguments

PROGRAMS = Path(__file__).resolve().parents[1] / "programs"
RECORD_ARGS = PROGRAMS / "record_args.py"
STOP_LINE = 13
sys.path.insert(0, str(PROGRAMS))

from record_args import make_particles  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")

LAYOUT = "Record(id[type=int32;offset=0],m[type=float64;offset=4],vx[type=float64;offset=12],vy[type=float32;offset=20];24;False)"


def _fields(record: np.void) -> list[tuple[str, str]]:
    """What the Variables view must show for each field: Python's repr of NumPy's value."""
    out = []
    for name in record.dtype.names:
        value = record[name]
        out.append((name, str(int(value)) if np.issubdtype(value.dtype, np.integer) else repr(float(value))))
    return out


def _check_record_argument(dap: DapClient, frame: dict[str, Any], expected: np.void) -> None:
    p = dap.scope_variables(frame["id"])["Arguments"]["p"]
    fields = _fields(expected)
    assert p["type"] == LAYOUT, p
    assert p["value"] == "(" + ", ".join(value for _, value in fields) + ")", p
    children = dap.ok("variables", {"variablesReference": p["variablesReference"]})["variables"]
    assert [(c["name"], c["value"]) for c in children] == fields
    assert [c["type"] for c in children] == ["int32", "float64", "float64", "float32"]
    for expression, value in (
        ("p.vx", fields[2][1]),
        ('p["vy"]', fields[3][1]),
        ("p.id * 2", str(2 * int(expected["id"]))),
    ):
        result = dap.ok("evaluate", {"expression": expression, "frameId": frame["id"], "context": "watch"})
        assert result["result"] == value, (expression, result)


def test_record_argument_from_a_jitted_and_a_python_caller(dap: DapClient) -> None:
    particles = make_particles()
    assert dap.start(RECORD_ARGS, breakpoints={STOP_LINE: {}})["success"]
    # total() passes particles[0], [1], [2] (scale omitted), then Python passes particles[2] and 2.0.
    for index, caller in ((0, "total("), (1, "total("), (2, "total("), (2, "main")):
        thread = dap.stopped()["threadId"]
        frames = dap.top_frames(thread)
        assert frames[0]["name"].startswith("kinetic(") and frames[0]["line"] == STOP_LINE, frames[0]
        assert frames[1]["name"].startswith(caller), frames[1]
        _check_record_argument(dap, frames[0], particles[index])
        if caller == "main":
            assert dap.scope_variables(frames[0]["id"])["Arguments"]["scale"]["value"] == "2.0"
        dap.ok("continue", {"threadId": thread})
    dap.event("terminated")


def test_record_argument_of_a_function_loaded_from_numbas_cache_stays_unavailable(
    dap: DapClient, tmp_path: Path
) -> None:
    """A cached function's symbol carries the record numbers of the process that compiled it: no
    type is taken from this process's numbers."""
    program = tmp_path / "record_cached.py"
    program.write_text(RECORD_ARGS.read_text().replace("@njit(debug=True)", "@njit(debug=True, cache=True)"))
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    first = DapClient(str(tmp_path / "first.log"))
    try:  # compiles, exports the signatures and writes the cache
        assert first.start(program, breakpoints={STOP_LINE: {}}, env=env)["success"]
        frame = first.top_frames(first.stopped()["threadId"])[0]
        _check_record_argument(first, frame, make_particles()[0])
    finally:
        first.close()
    assert list((tmp_path / "numba-cache").rglob("*.nbi")), "nothing was cached"
    assert dap.start(program, breakpoints={STOP_LINE: {}}, env=env)["success"]
    frame = dap.top_frames(dap.stopped()["threadId"])[0]
    p = dap.scope_variables(frame["id"])["Arguments"]["p"]
    assert (
        p["value"].startswith("<unavailable>") and "a pointer to 24 bytes (a record argument)" in p["value"]
    ), p
    assert "Numba's cache" in p["value"], p


@pytest.fixture
def record_service() -> Iterator[subprocess.Popen[str]]:
    env = {**os.environ, "NUMBA_DEBUGINFO": "1", "NUMBA_OPT": "0"}
    proc = subprocess.Popen(
        [sys.executable, str(RECORD_ARGS), "serve"], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("ready")
    yield proc
    proc.kill()
    proc.wait(30)


def test_record_argument_after_attach_stays_unavailable(
    dap: DapClient, record_service: subprocess.Popen[str]
) -> None:
    """Attached to a running program: nothing exported its compiled signatures, so `p` stays
    unavailable with the reason (never a layout guessed from the pointer's size)."""
    dap.attach(record_service.pid)
    dap.ok("setBreakpoints", {"source": {"path": str(RECORD_ARGS)}, "breakpoints": [{"line": STOP_LINE}]})
    dap.ok("configurationDone")
    frame = dap.top_frames(dap.stopped()["threadId"])[0]
    assert frame["name"].startswith("kinetic(") and frame["line"] == STOP_LINE, frame
    p = dap.scope_variables(frame["id"])["Arguments"]["p"]
    assert p["value"].startswith("<unavailable>"), p
    assert "a pointer to 24 bytes (a record argument)" in p["value"], p
    assert "did not export its compiled signatures" in p["value"], p
    dap.ok("setBreakpoints", {"source": {"path": str(RECORD_ARGS)}, "breakpoints": []})
    dap.ok("disconnect", {"terminateDebuggee": False})
    dap.event("terminated")


# --- the table's rules, on entries as the debuggee writes them and a frame name as gdb prints it ------
FILE = "/tmp/prog.py"
TAGS = ["v2", "c8tJTC_2fWwGaMLSgd6CjA4xXKR0tsqKIYSQsqDQwVMEsTAA_3d_3d"]
FRAME = f"__main__::kinetic[abi:{TAGS[0]}][abi:{TAGS[1]}](Record<386>, omitted_28default_3d1::_0_29)"


def _entry(**changes: Any) -> dict[str, Any]:
    entry = {
        "kind": "record_arguments",
        "pid": 100,
        "file": FILE,
        "name": "kinetic",
        "abi_tags": TAGS,
        "params": ["p", "scale"],
        "records": {"p": [386, LAYOUT]},
    }
    entry.update(changes)
    return entry


def _lookup(*entries: dict[str, Any], pid: int = 100, size: int = 24, frame: str = FRAME) -> tuple[Any, str]:
    table = RecordArguments()
    for entry in entries:
        table.merge(entry)
    return table.lookup(pid, FILE, frame, "p", size)


def test_record_table_gives_the_type_only_when_every_link_holds() -> None:
    record, why = _lookup(_entry())
    assert (
        record is not None and record.kind == "record" and record.names == ("id", "m", "vx", "vy") and not why
    )
    assert record.offsets == (0, 4, 12, 20) and record.size == 24
    # Another process's numbers (a forked child), another compile's tags, another number in the frame.
    assert _lookup(_entry(pid=101))[0] is None
    assert "cache" in _lookup(_entry(abi_tags=["v3", TAGS[1]]))[1]
    assert _lookup(_entry(), frame=FRAME.replace("Record<386>", "Record<387>"))[0] is None
    # The pointer's size must be the record's.
    assert "not 32 bytes" in _lookup(_entry(), size=32)[1]
    # Positions: the frame's argument list must have the compiled parameters (omitted ones included).
    assert _lookup(_entry(params=["p"]))[0] is None
    assert _lookup(_entry(params=["scale", "p"]))[0] is None
    # One number written with two layouts: a contradiction, nothing is shown.
    other = LAYOUT.replace("vy[type=float32", "vy[type=int32")
    conflicting = _entry(name="other", abi_tags=["v9", TAGS[1]], records={"p": [386, other]})
    assert "2 different layouts" in _lookup(_entry(), conflicting)[1]
    # Two compiles under one symbol name that disagree.
    assert _lookup(_entry(), _entry(params=["p", "other"]))[0] is None
