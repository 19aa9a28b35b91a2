"""What makes the launch fast must not change what the user sees: real gdb, debugpy and Numba."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from dapclient import DapClient

from pyserver.debug.debuggee.inside import BOOTSTRAP
from pyserver.debug.gdb.backend import GdbBackend
from pyserver.debug.gdb.inside import LLVM_SYMBOLS_SCRIPT
from pyserver.debug.gdb.launcher import debuggee_argv
from pyserver.debug.python.debugpy_client import DebugpyClient
from pyserver.debug.session.common import free_port

PROGRAMS = Path(__file__).resolve().parent / "programs"


def test_llvmlite_read_without_demangling_jitted_names_still_demangled(gdb_at_line) -> None:
    """gdb skips demangling libllvmlite's symbols only: demangling is back on before jitted code
    registers, so a jitted frame still reads `__main__::walk[abi:...](...)`, and the JIT interface
    (C names in libllvmlite) still works."""

    def source_llvm_symbols_script(gdb: GdbBackend) -> None:
        gdb.execute_console(f"source {LLVM_SYMBOLS_SCRIPT}")
        assert "none" in gdb.execute_console("show demangle-style")

    stopped = gdb_at_line(PROGRAMS / "kernels.py", 16, before_run=source_llvm_symbols_script)
    frame = stopped.stop["frame"]
    assert frame["func"].startswith("__main__::walk[abi:") and frame["line"] == "16"
    assert '"auto"' in stopped.gdb.execute_console("show demangle-style")
    # libllvmlite's symbols are read (only not demangled).
    llvm_symbol = stopped.gdb.execute_console("info symbol LLVMPY_GetVersionInfo")
    assert "libllvmlite" in llvm_symbol


def test_debugpy_answers_without_waiting_for_delayed_acks() -> None:
    """pydevd writes a message's header and body separately: without TCP_NODELAY on its socket (set by
    the bootstrap) every reply waited about 40 ms for the adapter's delayed ACK."""
    port = free_port()
    program = PROGRAMS / "kernels.py"
    argv = debuggee_argv(program=str(program), module=None, args=[], debugpy_port=port)
    process = subprocess.Popen(
        [sys.executable, *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1", "NUMBA_DISABLE_JIT": "1"},
    )
    client = DebugpyClient()
    initialized = threading.Event()
    client.add_listener(lambda m: initialized.set() if m.get("event") == "initialized" else None)
    try:
        client.connect(port, 60.0, lambda: process.poll() is None)
        client.request("initialize", {"adapterID": "debugpy", "pathFormat": "path"}).wait(30)
        client.request("launch", {"justMyCode": True, "rules": [{"path": str(BOOTSTRAP), "include": False}]})
        assert initialized.wait(30)
        took: list[float] = []
        for _ in range(9):
            started = time.perf_counter()
            reply = client.request("setExceptionBreakpoints", {"filters": []}).wait(30)
            took.append(time.perf_counter() - started)
            assert reply is not None and reply["success"]
        # 40 ms or more each with Nagle's algorithm in the way; a few ms without.
        assert statistics.median(took) < 0.025, took
        client.request("configurationDone").wait(30)
        assert process.wait(120) == 0
    finally:
        client.close()
        if process.poll() is None:
            process.kill()
            process.wait(10)


ENV_BEFORE_IMPORT = """import os
os.environ["NUMBA_BOUNDSCHECK"] = "1"
import numba
from numba import njit


@njit(debug=True)
def double(x):
    return x * 2


print("boundscheck:", numba.config.BOUNDSCHECK, "double:", double(21))
"""


def test_program_setting_numba_variables_before_import_sees_them(tmp_path: Path) -> None:
    """A launch changes nothing a program does before `import numba`: its own NUMBA_* settings hold, and
    a breakpoint on its first line (debugpy's, set before the program runs) stops there."""
    program = tmp_path / "env_first.py"
    program.write_text(ENV_BEFORE_IMPORT)
    client = DapClient(str(tmp_path / "dap.log"))
    try:
        assert client.start(program, breakpoints={1: {}})["success"]
        stop = client.stopped()
        assert stop["reason"] == "breakpoint"
        assert client.top_frames(stop["threadId"])[0]["line"] == 1
        client.ok("continue", {"threadId": stop["threadId"]})
        client.event("terminated")
        assert "boundscheck: 1 double: 42" in client.output_text()
    finally:
        client.close()
