"""Launch errors say what to do, and the adapter stays alive after them."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest
from dapclient import DapClient

MIXED = Path(__file__).resolve().parent / "programs" / "mixed.py"


@pytest.fixture
def dap(dap: DapClient) -> DapClient:
    """This file's tests start from an initialized adapter."""
    dap.ok("initialize", {"adapterID": "numba", "linesStartAt1": True, "pathFormat": "path"})
    return dap


def launch_error(dap: DapClient, **arguments: object) -> str:
    response = dap.request("launch", {"cwd": str(MIXED.parent), **arguments}, timeout=120)
    assert response["success"] is False
    message = str(response["message"])
    assert response["body"]["error"]["showUser"] is True
    return message


def assert_still_serving(dap: DapClient) -> None:
    assert dap.ok("threads")["threads"] == []
    assert "supportsConfigurationDoneRequest" in dap.ok("initialize", {"adapterID": "numba"})


def test_program_that_does_not_exist(dap: DapClient) -> None:
    message = launch_error(dap, program="no_such_program.py")
    assert "Program not found" in message and "no_such_program.py" in message and '"cwd"' in message
    assert_still_serving(dap)


def test_no_gdb(dap: DapClient) -> None:
    message = launch_error(dap, program=str(MIXED), gdbPath="/nonexistent/gdb")
    assert "gdb not found" in message and "apt-get install gdb" in message and '"gdbPath"' in message
    assert_still_serving(dap)


def test_gdb_15_is_refused(dap: DapClient, tmp_path: Path) -> None:
    # A stand-in that reports itself as gdb 15.1, as `gdb --version` does.
    fake = tmp_path / "gdb"
    fake.write_text('#!/bin/sh\necho "GNU gdb (GDB) 15.1"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    message = launch_error(dap, program=str(MIXED), gdbPath=str(fake))
    assert "gdb 15.1" in message and "cannot see" in message and "gdb 16" in message
    assert_still_serving(dap)


def test_interpreter_without_numba(dap: DapClient) -> None:
    if Path("/usr/bin/python3").resolve() == Path(sys.executable).resolve():
        pytest.skip("the system interpreter is the one under test")
    message = launch_error(dap, program=str(MIXED), python="/usr/bin/python3")
    assert "Numba is not installed in /usr/bin/python3" in message and "pip install" in message
    assert_still_serving(dap)


def test_jit_disabled_in_mixed_mode(dap: DapClient) -> None:
    message = launch_error(dap, program=str(MIXED), env={"NUMBA_DISABLE_JIT": "1"})
    assert "NUMBA_DISABLE_JIT" in message and '"mode": "python"' in message


def test_unknown_mode(dap: DapClient) -> None:
    assert "Unknown" in launch_error(dap, program=str(MIXED), mode="gpu")


def test_nothing_to_debug(dap: DapClient) -> None:
    assert '"program"' in launch_error(dap)


def test_ptrace_refusal_is_explained() -> None:
    """gdb's answer when ptrace is not permitted (it cannot be provoked on a machine where it works)."""
    from pyserver.debug.session import ptrace_hint

    hint = ptrace_hint("During startup program exited with code 127.\nptrace: Operation not permitted.")
    assert hint is not None and "ptrace_scope" in hint and "SYS_PTRACE" in hint
    assert ptrace_hint("No symbol table is loaded.") is None


def test_attach_where_nothing_listens(dap: DapClient) -> None:
    from pyserver.debug.session import free_port

    response = dap.request("attach", {"host": "127.0.0.1", "port": free_port()}, timeout=60)
    assert response["success"] is False and "Nothing answers as debugpy" in response["message"]
    assert_still_serving(dap)
