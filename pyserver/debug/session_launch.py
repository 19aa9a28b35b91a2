"""Launch and attach: the debuggee under gdb (or attached to), debugpy in it, the environment. A part of the Session class (session.py)."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyserver.debug.dap import DapError
from pyserver.debug.debuggee.inside import BOOTSTRAP
from pyserver.debug.gdb.backend import GdbBackend, set_parent_death_signal
from pyserver.debug.gdb.inside import LLVM_SYMBOLS_SCRIPT, PYFRAMES_SCRIPT
from pyserver.debug.gdb.launcher import (
    InferiorPty,
    configure_gdb,
    debuggee_argv,
    start_inferior,
)
from pyserver.debug.gdb.mi import breakpoint as mi_breakpoint
from pyserver.debug.gdb.mi import target as mi_target
from pyserver.debug.gdb.mi import thread as mi_thread
from pyserver.debug.gdb.mi.exec import Resume
from pyserver.debug.gdb.mi_protocol import GdbCommandError
from pyserver.debug.jit import frames as jitframes
from pyserver.debug.jit.entry_stop import FirstStatementStop, candidate_files, locate_first_statement
from pyserver.debug.jit.stepping import LineStepper
from pyserver.debug.launch_spec import AttachSpec, LaunchSpec, launch_mode
from pyserver.debug.python.debugpy_client import DebugpyClient
from pyserver.debug.session_common import (
    DEBUGPY_CONNECT_TIMEOUT_S,
    DEBUGPY_REPLY_TIMEOUT_S,
    EXCEPTION_FILTERS,
    GDB_TIMEOUT_S,
    free_port,
    ptrace_hint,
)
from pyserver.debug.stop_intent import IntentKind
from pyserver.debug.values import ValuesBridge
from pyserver.gdb_install import resolve_gdb
from pyserver.versions import gdb_can_see_jit, install_command, numba_verdict

if TYPE_CHECKING:
    from pyserver.debug.session import Session


# --- initialize / launch -------------------------------------------------------------------------
def on_initialize(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    self.client_runs_in_terminal = bool(args.get("supportsRunInTerminalRequest", False))
    return {
        "supportsConfigurationDoneRequest": True,
        "supportsFunctionBreakpoints": True,
        "supportsConditionalBreakpoints": True,
        "supportsHitConditionalBreakpoints": True,
        "supportsLogPoints": True,
        "supportsEvaluateForHovers": True,
        "supportsTerminateRequest": True,
        "supportsDelayedStackTraceLoading": True,
        "supportsExceptionInfoRequest": True,
        "supportTerminateDebuggee": True,
        "supportsSetVariable": False,
        "exceptionBreakpointFilters": EXCEPTION_FILTERS,
    }


def on_launch(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    spec = self._launch_spec(args)
    if spec.mode in ("python", "cudasim") and spec.stop_at_jit_function:
        self._first_statement_stop = self._locate_first_statement_stop(spec)
    if spec.mode == "mixed":
        self._launch_mixed(spec)
    else:
        self._launch_plain(spec)
    self._start_debugpy(spec.port)
    return {}


def _launch_spec(self: Session, args: dict[str, Any]) -> LaunchSpec:
    """The launch request read once: checked (cwd, program, interpreter, Numba and debugpy in it), the
    debuggee's environment made, debugpy's port chosen. The session's own settings are taken from it."""
    self.mode = mode = launch_mode(args)
    self.show_internal = bool(args.get("showInternalFrames", False))
    self.just_my_code = bool(args.get("justMyCode", True))
    self.stop_on_entry = bool(args.get("stopOnEntry", False))
    self.console = str(args.get("console") or "internalConsole")
    self.record_reverse = bool(args.get("reverse", False)) and mode == "mixed"
    if self.record_reverse:
        self.stream.event("capabilities", {"capabilities": {"supportsStepBack": True}})
    cwd = str(args.get("cwd") or os.getcwd())
    if not os.path.isdir(cwd):
        raise DapError(f'The "cwd" folder does not exist: {cwd}. Fix "cwd" in launch.json.')
    program = args.get("program")
    module = args.get("module")
    if not program and not module:
        raise DapError('Nothing to debug: set "program" (a .py file) or "module" in launch.json.')
    if program:
        program = str(Path(cwd, str(program)).resolve()) if not os.path.isabs(str(program)) else str(program)
        if not os.path.isfile(program):
            raise DapError(
                f'Program not found: {program}. Check "program" in launch.json '
                f'(a relative path is resolved from "cwd").'
            )
    python = str(args.get("python") or sys.executable)
    if isinstance(args.get("python"), list):
        python = str(args["python"][0])
    if shutil.which(python) is None and not os.path.isfile(python):
        raise DapError(f'Python interpreter not found: {python}. Fix "python" in launch.json.')
    env = self._debuggee_env(args)
    self._check_numba(python, env)
    stop_at = args.get("stopAtJitFunction")
    return LaunchSpec(
        mode=mode,
        python=python,
        program=str(program) if program else None,
        module=str(module) if module else None,
        args=tuple(str(a) for a in (args.get("args") or [])),
        env=env,
        cwd=cwd,
        port=free_port(),
        stop_at_jit_function=str(stop_at) if stop_at else None,
        gdb_path=args.get("gdbPath"),
        console=self.console,
        show_internal=self.show_internal,
        just_my_code=self.just_my_code,
        stop_on_entry=self.stop_on_entry,
        reverse=self.record_reverse,
    )


def _locate_first_statement_stop(self: Session, spec: LaunchSpec) -> FirstStatementStop | None:
    """stopAtJitFunction in modes python and cudasim: the one-shot stop on the function's first
    statement (pyserver/debug/entry_stop.py), or None (said to the user) when it is not found."""
    assert spec.stop_at_jit_function is not None
    target = spec.stop_at_jit_function
    name, candidates = candidate_files(target, spec.program, spec.cwd, dict(spec.env), list(spec.args))
    found = locate_first_statement(name, candidates)
    if found is not None:
        path, line = found
        self.log(f"stopAtJitFunction {target} -> {path}:{line}")
        return FirstStatementStop(name, str(path), line, self.new_id())
    what = "kernel" if self.mode == "cudasim" else "jitted function"
    self.output(
        f'stopAtJitFunction: no {what} "{target}" found in {", ".join(map(str, candidates)) or "the program"}'
        f"; the program runs without stopping there. Set a breakpoint in the {what.split()[-1]} instead.\n",
        "important",
    )
    return None


def _debuggee_env(self: Session, args: dict[str, Any]) -> dict[str, str | None]:
    env: dict[str, str | None] = {}
    for key, value in (args.get("env") or {}).items():
        env[str(key)] = None if value is None else str(value)
    if self.mode == "mixed":
        if env.get("NUMBA_DISABLE_JIT", "0") not in ("0", "", None):
            raise DapError(
                'NUMBA_DISABLE_JIT is set in "env": jitted code would not exist. '
                'Remove it, or use "mode": "python" to debug the functions as plain Python.'
            )
        env["NUMBA_DEBUGINFO"] = "1"
        env["NUMBA_OPT"] = str(args.get("numbaOpt", 0))
        env["NUMBA_ENABLE_SYS_MONITORING"] = "0"
        env["NUMBA_LENS_UNDER_GDB"] = "1"
        if self.live_versions_dir is None:
            self.live_versions_dir = tempfile.mkdtemp(prefix="numba-lens-live-")
            # Also when the adapter ends without the session's shutdown (its client gone, a failed launch).
            atexit.register(shutil.rmtree, self.live_versions_dir, ignore_errors=True)
        env["NUMBA_LENS_LIVE_VERSIONS"] = os.path.join(self.live_versions_dir, "live-versions.jsonl")
    elif self.mode == "python":
        env["NUMBA_DISABLE_JIT"] = "1"
    elif self.mode == "cudasim":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    if args.get("boundscheck"):
        env["NUMBA_BOUNDSCHECK"] = "1"
    if args.get("reverse") and self.mode == "mixed":
        # gdb's `record full` cannot record AVX (VEX-encoded) instructions: jitted code is compiled for
        # a generic x86-64 CPU, and glibc told not to pick its AVX string functions.
        env.setdefault("NUMBA_CPU_NAME", "generic")
        env.setdefault(
            "GLIBC_TUNABLES",
            "glibc.cpu.hwcaps=-AVX_Usable,-AVX2_Usable,-AVX512F_Usable,-AVX,-AVX2,-AVX512F",
        )
    env["PYTHONUNBUFFERED"] = "1"
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    return env


def _check_numba(self: Session, python: str, env: dict[str, str | None]) -> None:
    """Numba and debugpy must be importable by the debuggee's interpreter (checked without importing
    Numba, which would cost a third of a second)."""
    code = (
        "import importlib.metadata as m, importlib.util as u\n"
        "def v(n):\n"
        "    try: return m.version(n)\n"
        "    except Exception: return None\n"
        "print(v('numba'), v('debugpy'), u.find_spec('debugpy') is not None)"
    )
    if os.path.realpath(python) == os.path.realpath(sys.executable):
        from importlib import metadata
        from importlib.util import find_spec

        def version(name: str) -> str | None:
            try:
                return metadata.version(name)
            except metadata.PackageNotFoundError:
                return None

        numba_version, debugpy_ok = version("numba"), find_spec("debugpy") is not None
    else:
        try:
            out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DapError(f"Could not run the interpreter {python}: {exc}") from None
        parts = out.stdout.split()
        numba_version = parts[0] if parts and parts[0] != "None" else None
        debugpy_ok = len(parts) > 2 and parts[2] == "True"
    if self.mode == "mixed":
        if numba_version is None:
            raise DapError(
                f"Numba is not installed in {python}, so there is no jitted code to debug. "
                f'Install it ({install_command(python)}) or use "mode": "python".'
            )
        verdict = numba_verdict(numba_version, python)  # the one policy: pyserver/versions.py
        if not verdict.usable:
            raise DapError(f'{verdict.message} Or use "mode": "python".')
    if not debugpy_ok:
        raise DapError(f"debugpy is not installed in {python}. Install it: {python} -m pip install debugpy")


def _mi_gdb_version(gdb: GdbBackend) -> str | None:
    """gdb's version, asked in the MI session itself; GdbCommandError/IndexError: it did not answer."""
    first_line = gdb.execute_console("show version", timeout=60).strip().splitlines()[0]
    match = re.search(r"(\d+\.\d+(?:\.\d+)?)\s*$", first_line) or re.search(r"(\d+\.\d+)", first_line)
    return match.group(1) if match else None


def _launch_mixed(self: Session, spec: LaunchSpec) -> None:
    from pyserver.doctor import gdb_version, parse_version

    version: str | None = None
    system = shutil.which("gdb") if not str(spec.gdb_path or "").strip() else None
    if system is not None:
        # resolve_gdb's first choice (gdb on PATH when it sees jitted code), judged by the version the
        # MI session reports: no `gdb --version` run (60 ms) before gdb starts.
        first = GdbBackend(system, log=self.log)
        try:
            version = _mi_gdb_version(first)
        except (GdbCommandError, IndexError):
            version = None
        if gdb_can_see_jit(version):
            self.gdb = first
        else:
            first.close()
            version = None
    gdb_path = resolved = system
    if self.gdb is None:
        gdb_path = resolve_gdb(spec.gdb_path)  # gdbPath, else a gdb that sees jitted code
        resolved = shutil.which(gdb_path)
        if resolved is None:
            raise DapError(
                f"gdb not found ('{gdb_path}'). Install it (Debian/Ubuntu: sudo apt-get install gdb) or set "
                '"gdbPath" in launch.json; "mode": "python" debugs without gdb (jitted code runs as Python).'
            )
        # The version comes from the MI session itself (one gdb start, not two).
        self.gdb = GdbBackend(resolved, log=self.log)
        try:
            version = _mi_gdb_version(self.gdb)
        except (GdbCommandError, IndexError):
            self.gdb.close()
            self.gdb = None
            version = gdb_version(resolved)
            if version is None or parse_version(version)[:1] != (15,):
                raise DapError(
                    f"'{gdb_path}' did not run as gdb with MI ({version or 'no version'}). "
                    'Set "gdbPath" to a working gdb.'
                ) from None
    if version is not None and parse_version(version)[:1] == (15,):
        if self.gdb is not None:
            self.gdb.close()
            self.gdb = None
        raise DapError(
            f"gdb {version} cannot see Numba's jitted code (Numba issue 9817, fixed in gdb 16). "
            'Run "python -m pyserver doctor --fix" (gdb 18 from PyPI), or install gdb 13, 14 or 16+, or use "mode": "python".'
        )
    assert self.gdb is not None
    self._stepper = LineStepper(self.gdb, self._gdb_resume, self.just_my_code, self.log)
    self.gdb.add_listener(self._on_gdb_record)
    live_versions = self.live_versions_dir and os.path.join(self.live_versions_dir, "live-versions.jsonl")
    self.values = ValuesBridge(self.gdb, self.log, live_versions=live_versions or None)
    configure_gdb(self.gdb)
    self._configure_stepping()
    if self.record_reverse:
        # A bounded log: the oldest instructions are dropped rather than stopping the program.
        for setting in (
            "set record full insn-number-max 1000000",
            "set record full stop-at-limit off",
        ):
            self.gdb.execute_console(setting)
    try:
        self.gdb.execute_console(f"source {PYFRAMES_SCRIPT}")
    except GdbCommandError as exc:
        self.log(f"no Python frames from gdb: {exc}")
    tty_name = self._program_tty(spec.cwd, spec.target)
    if spec.stop_at_jit_function:
        bp, _ = self._insert_function_breakpoint({"name": spec.stop_at_jit_function}, temporary=True)
        self.log(f"stopAtJitFunction -> gdb breakpoint {bp.number}")
    self._insert_in_code_breakpoint()
    try:
        self.gdb.execute_console(f"source {LLVM_SYMBOLS_SCRIPT}")
    except GdbCommandError as exc:
        self.log(f"libllvmlite's symbols are demangled: {exc}")
    try:
        start_inferior(
            self.gdb,
            python=spec.python,
            argv=debuggee_argv(
                program=spec.program, module=spec.module, args=spec.args, debugpy_port=spec.port
            ),
            env=spec.env,
            cwd=spec.cwd,
            tty_name=tty_name,
        )
    except GdbCommandError as exc:
        hint = ptrace_hint(exc.message)
        raise DapError(hint or f"gdb could not start the program: {exc.message}") from None


def _configure_stepping(self: Session) -> None:
    """Steps never enter an array expression's generated kernel (its debug info points at the first
    lines of the user's file, not at the expression) and, with justMyCode, Numba's own library code."""
    assert self.gdb is not None
    skips = [f"skip -rfu {jitframes.ARRAY_EXPR_KERNEL}"]
    if self.just_my_code:
        skips.append("skip -rfu ^numba::")
    for command in skips:
        try:
            self.gdb.execute_console(command)
        except GdbCommandError as exc:
            self.log(f"{command}: {exc.message}")


def _insert_in_code_breakpoint(self: Session) -> None:
    """`numba.gdb_breakpoint()` (and, under the adapter, `numba.gdb()`: see debuggee_boot.py) call the C
    function numba_gdb_breakpoint: break there (pending until Numba's helper library loads), then
    finish to the jitted caller, so the stop shows the user's line, not Numba's helper."""
    assert self.gdb is not None
    try:
        inserted = mi_breakpoint.break_insert(self.gdb, "numba_gdb_breakpoint", allow_pending=True)
        self._in_code_bp_number = inserted.number
    except GdbCommandError as exc:
        self.log(f"no in-code breakpoints: {exc.message}")


def _launch_plain(self: Session, spec: LaunchSpec) -> None:
    full_env = dict(os.environ)
    for key, value in spec.env.items():
        if value is None:
            full_env.pop(key, None)
        else:
            full_env[key] = value
    tty_name = self._program_tty(spec.cwd, spec.target)
    tty_fd = self.pty.slave_fd if self.pty is not None else os.open(tty_name, os.O_RDWR | os.O_NOCTTY)
    argv = debuggee_argv(program=spec.program, module=spec.module, args=spec.args, debugpy_port=spec.port)
    self.process = subprocess.Popen(
        [spec.python, *argv],
        stdin=tty_fd,
        stdout=tty_fd,
        stderr=tty_fd,
        cwd=spec.cwd,
        env=full_env,
        start_new_session=True,
        preexec_fn=set_parent_death_signal,
    )
    if self.pty is None:
        os.close(tty_fd)
    self.inferior_pid = self.process.pid
    threading.Thread(target=self._watch_plain_process, name="debuggee-wait", daemon=True).start()


def _program_tty(self: Session, cwd: str, target: str) -> str:
    """The terminal device for the program: the editor's terminal, or our pty feeding the console."""
    if self.console == "integratedTerminal":
        self.terminal = self._terminal(cwd, f"Numba Lens: {os.path.basename(target)}")
        if self.terminal is not None:
            return self.terminal.tty
    self.pty = InferiorPty(lambda text: self.output(text, "stdout"))
    return self.pty.name


def _watch_plain_process(self: Session) -> None:
    assert self.process is not None
    code = self.process.wait()
    self._program_exited(code)


def _start_debugpy(self: Session, port: int, *, connect_only: bool = False) -> None:
    if connect_only and self.gdb is not None:
        # gdb stopped every thread on attach: let them run, or debugpy cannot answer.
        self._wait_gdb_stopped_then_continue()
    client = DebugpyClient(self.log)
    client.add_listener(self._on_debugpy_event)
    initialized = threading.Event()
    client.add_listener(lambda m: initialized.set() if m.get("event") == "initialized" else None)

    def alive() -> bool:
        if self.gdb is not None:
            return not self.gdb.exited.is_set() and self._exit_code is None
        if self.process is not None:
            return self.process.poll() is None
        return True  # attach to host/port: nothing of ours to watch

    try:
        client.connect(port, 10.0 if self.attached and self.gdb is None else DEBUGPY_CONNECT_TIMEOUT_S, alive)
    except ConnectionError as exc:
        failure = self._debugpy_listen_failure(port, alive)
        if failure is not None and not self.attached:
            raise DapError(failure) from None
        if self.attached:
            raise DapError(f"Nothing answers as debugpy on 127.0.0.1:{port}: {exc}.") from None
        raise DapError(f"The program did not start debugpy: {exc}. See the program output above.") from None
    self.debugpy = client
    init = client.request(
        "initialize",
        {
            "clientID": "numba-lens",
            "adapterID": "debugpy",
            "pathFormat": "path",
            "linesStartAt1": True,
            "columnsStartAt1": True,
            "supportsRunInTerminalRequest": False,
        },
    )
    self._wait_debugpy(init, "initialize", port, alive)
    # Our own launches run debugpy's in-process server, which takes `launch` (stopOnEntry included);
    # attaching to a program that runs debugpy's adapter takes `attach`.
    attach = client.request(
        "attach" if self.attached else "launch",
        {
            "stopOnEntry": self.stop_on_entry and not self.attached,
            "justMyCode": self.just_my_code,
            # Our bootstrap is never "my code": no stop there when a step leaves the program.
            "rules": [{"path": str(BOOTSTRAP), "include": False}],
            "subProcess": False,
            "redirectOutput": False,
            "showReturnValue": False,
            "connect": {"host": "127.0.0.1", "port": port},
        },
    )
    attach.then(lambda r: self.log(f"debugpy attach: {r.get('success')} {r.get('message', '')}"))
    deadline = time.monotonic() + DEBUGPY_CONNECT_TIMEOUT_S
    while not initialized.wait(0.25):
        failure = self._debugpy_listen_failure(port, alive)
        if failure is not None:
            raise DapError(failure)
        if time.monotonic() > deadline:
            raise DapError("debugpy did not get ready (no 'initialized' event).")
    if self.inferior_pid is None and self.gdb is not None:
        self.inferior_pid = self._gdb_inferior_pid()
    self.stream.event("initialized")


def _wait_gdb_stopped_then_continue(self: Session) -> None:
    assert self.gdb is not None
    deadline = time.monotonic() + GDB_TIMEOUT_S
    while self.owner != "gdb" and time.monotonic() < deadline:
        time.sleep(0.02)
    self._update_intent(kind=IntentKind.CONTINUE)
    self._gdb_resume(Resume("continue"))


def _gdb_inferior_pid(self: Session) -> int | None:
    assert self.gdb is not None
    try:
        groups = mi_thread.list_thread_groups(self.gdb)
        return int(groups[0]["pid"])
    except (GdbCommandError, KeyError, IndexError, ValueError):
        return None


def on_attach(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    spec = AttachSpec.from_args(args)
    self.attached = True
    self.show_internal = spec.show_internal
    self.just_my_code = spec.just_my_code
    if spec.process_id is not None:
        self._attach_to_process(spec.process_id, spec)
        return {}
    self.mode = "python"
    if spec.port is None:
        raise DapError('attach needs "processId", or "host" and "port" where debugpy listens.')
    if spec.host not in ("127.0.0.1", "localhost"):
        raise DapError("Only 127.0.0.1 is supported for attach.")
    self._start_debugpy(spec.port)
    return {}


def _attach_to_process(self: Session, pid: int, spec: AttachSpec) -> None:
    """gdb attaches for jitted frames; debugpy is injected first (by its own `--pid`, which uses gdb
    too: two tracers cannot hold one process at once)."""
    if not os.path.exists(f"/proc/{pid}"):
        raise DapError(f"No process with id {pid}.")
    self.mode = "mixed"
    self.inferior_pid = pid
    port = free_port()
    try:
        injected = subprocess.run(
            [spec.python, "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--pid", str(pid)],
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=set_parent_death_signal,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DapError(f"Could not inject debugpy into process {pid}: {exc}") from None
    if injected.returncode != 0:
        detail = (injected.stderr or injected.stdout).strip()[-500:]
        raise DapError(ptrace_hint(detail) or f"Could not inject debugpy into process {pid}: {detail}")
    gdb_path = shutil.which(resolve_gdb(spec.gdb_path))
    if gdb_path is None:
        raise DapError(
            'gdb not found. Install it (Debian/Ubuntu: sudo apt-get install gdb) or set "gdbPath".'
        )
    self.gdb = GdbBackend(gdb_path, log=self.log)
    self._stepper = LineStepper(self.gdb, self._gdb_resume, self.just_my_code, self.log)
    self.gdb.add_listener(self._on_gdb_record)
    self.values = ValuesBridge(self.gdb, self.log)
    configure_gdb(self.gdb)
    self._configure_stepping()
    try:
        self.gdb.execute_console(f"source {PYFRAMES_SCRIPT}")
    except GdbCommandError as exc:
        self.log(f"no Python frames from gdb: {exc}")
    try:
        mi_target.target_attach(self.gdb, pid, timeout=120)
    except GdbCommandError as exc:
        raise DapError(ptrace_hint(exc.message) or f"gdb could not attach to {pid}: {exc.message}") from None
    self._update_intent(kind=IntentKind.ATTACH)
    self._start_debugpy(port, connect_only=True)


def on_configuration_done(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    self._send_first_statement_stop()
    if self.debugpy is not None:
        reply = self.debugpy.request("configurationDone")
        reply.wait(DEBUGPY_REPLY_TIMEOUT_S)
    return {}


def on_set_exception_breakpoints(self: Session, args: dict[str, Any]) -> dict[str, Any]:
    if self.debugpy is not None:
        reply = self.debugpy.request("setExceptionBreakpoints", args)
        if self.owner == "gdb":
            with self._lock:
                self._debugpy_backlog.append(reply)
        else:
            response = reply.wait(self._debugpy_patience())
            if response is not None and response.get("body"):
                return dict(response["body"])
    return {}
