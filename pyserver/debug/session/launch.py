"""Launch and attach: the request read into a spec, the debuggee's environment, gdb started and
configured (the jitted side), the program started under gdb or as a plain child, debugpy connected in it
(the Python side)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyserver.debug.dap import DapError, Message
from pyserver.debug.debuggee.inside import BOOTSTRAP
from pyserver.debug.gdb.backend import GdbBackend, set_parent_death_signal
from pyserver.debug.gdb.inside import LLVM_SYMBOLS_SCRIPT, PYFRAMES_SCRIPT
from pyserver.debug.gdb.launcher import (
    configure_gdb,
    debuggee_argv,
    start_inferior,
)
from pyserver.debug.gdb.mi import target as mi_target
from pyserver.debug.gdb.mi_protocol import GdbCommandError
from pyserver.debug.jit import frames as jitframes
from pyserver.debug.jit.entry_stop import FirstStatementStop, candidate_files, locate_first_statement
from pyserver.debug.launch_spec import AttachSpec, LaunchMode, LaunchSpec, launch_mode
from pyserver.debug.python.debugpy_client import DebugpyClient, Reply
from pyserver.debug.session.common import (
    DEBUGPY_CONNECT_TIMEOUT_S,
    free_port,
    ptrace_hint,
)
from pyserver.debug.session.jit_side import JitSide
from pyserver.debug.session.python_side import PythonSide
from pyserver.debug.stop_intent import IntentKind
from pyserver.gdb_install import resolve_gdb
from pyserver.versions import (
    gdb_calls_functions,
    gdb_calls_no_functions_text,
    gdb_that_calls_functions_hint,
    gdb_usable,
    install_command,
    numba_verdict,
)

if TYPE_CHECKING:
    from pyserver.debug.session.session import Session

# The debuggee's environment in the modes without gdb.
PLAIN_MODE_ENV = {
    LaunchMode.PYTHON: {"NUMBA_DISABLE_JIT": "1"},
    LaunchMode.CUDASIM: {"NUMBA_ENABLE_CUDASIM": "1"},
}
# How long to wait for a debugpy that an attach names by its port (nothing of ours starts it).
ATTACH_CONNECT_TIMEOUT_S = 10.0


# --- launch --------------------------------------------------------------------------------------
def launch(session: Session, args: dict[str, Any]) -> None:
    spec = read_launch_spec(session, args)
    if spec.mode is not LaunchMode.MIXED and spec.stop_at_jit_function:
        session.breakpoints.first_statement_stop = _locate_first_statement_stop(session, spec)
    if spec.mode is LaunchMode.MIXED:
        _launch_under_gdb(session, spec)
    else:
        session.debuggee.start_plain(
            spec,
            debuggee_argv(program=spec.program, module=spec.module, args=spec.args, debugpy_port=spec.port),
        )
    start_debugpy(session, spec, spec.port)


def read_launch_spec(session: Session, args: dict[str, Any]) -> LaunchSpec:
    """The launch request read once: checked (cwd, program, interpreter, Numba and debugpy in it), the
    debuggee's environment made, debugpy's port chosen."""
    mode = launch_mode(args)
    reverse = bool(args.get("reverse", False)) and mode is LaunchMode.MIXED
    if reverse:
        session.client.event("capabilities", {"capabilities": {"supportsStepBack": True}})
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
    env = debuggee_env(session, mode, args)
    check_numba(mode, python)
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
        console=str(args.get("console") or "internalConsole"),
        show_internal=bool(args.get("showInternalFrames", False)),
        just_my_code=bool(args.get("justMyCode", True)),
        stop_on_entry=bool(args.get("stopOnEntry", False)),
        reverse=reverse,
    )


def _locate_first_statement_stop(session: Session, spec: LaunchSpec) -> FirstStatementStop | None:
    """stopAtJitFunction in modes python and cudasim: the one-shot stop on the function's first
    statement (pyserver/debug/jit/entry_stop.py), or None (said to the user) when it is not found."""
    assert spec.stop_at_jit_function is not None
    target = spec.stop_at_jit_function
    name, candidates = candidate_files(target, spec.program, spec.cwd, dict(spec.env), list(spec.args))
    found = locate_first_statement(name, candidates)
    if found is not None:
        path, line = found
        session.client.log(f"stopAtJitFunction {target} -> {path}:{line}")
        return FirstStatementStop(name, str(path), line, session.handles.new_id())
    what = spec.mode.jitted_function_word
    session.client.output(
        f'stopAtJitFunction: no {what} "{target}" found in {", ".join(map(str, candidates)) or "the program"}'
        f"; the program runs without stopping there. Set a breakpoint in the {what.split()[-1]} instead.\n",
        "important",
    )
    return None


def debuggee_env(session: Session, mode: LaunchMode, args: dict[str, Any]) -> dict[str, str | None]:
    env: dict[str, str | None] = {}
    for key, value in (args.get("env") or {}).items():
        env[str(key)] = None if value is None else str(value)
    if mode is LaunchMode.MIXED:
        if env.get("NUMBA_DISABLE_JIT", "0") not in ("0", "", None):
            raise DapError(
                'NUMBA_DISABLE_JIT is set in "env": jitted code would not exist. '
                'Remove it, or use "mode": "python" to debug the functions as plain Python.'
            )
        env["NUMBA_DEBUGINFO"] = "1"
        env["NUMBA_OPT"] = str(args.get("numbaOpt", 0))
        env["NUMBA_ENABLE_SYS_MONITORING"] = "0"
        env["NUMBA_LENS_UNDER_GDB"] = "1"
        env["NUMBA_LENS_LIVE_VERSIONS"] = session.debuggee.live_versions_file()
    env.update(PLAIN_MODE_ENV.get(mode, {}))
    if args.get("boundscheck"):
        env["NUMBA_BOUNDSCHECK"] = "1"
    if args.get("reverse") and mode is LaunchMode.MIXED:
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


def check_numba(mode: LaunchMode, python: str) -> None:
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
    if mode is LaunchMode.MIXED:
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


# --- gdb -----------------------------------------------------------------------------------------
def _mi_gdb_version(gdb: GdbBackend) -> str | None:
    """gdb's version, asked in the MI session itself; GdbCommandError/IndexError: it did not answer."""
    first_line = gdb.execute_console("show version", timeout=60).strip().splitlines()[0]
    match = re.search(r"(\d+\.\d+(?:\.\d+)?)\s*$", first_line) or re.search(r"(\d+\.\d+)", first_line)
    return match.group(1) if match else None


def _start_gdb(session: Session, spec: LaunchSpec) -> GdbBackend:
    """A gdb that sees jitted code: gdb on PATH when it does, else gdbPath or the one resolve_gdb finds."""
    from pyserver.doctor import parse_version

    log = session.client.log
    gdb: GdbBackend | None = None
    version: str | None = None
    system = shutil.which("gdb") if not str(spec.gdb_path or "").strip() else None
    first: GdbBackend | None = None
    if system is not None:
        # resolve_gdb's first choice (gdb on PATH when it sees jitted code and can call functions in the
        # program), judged by the version the MI session reports: no `gdb --version` run (60 ms) first.
        first = GdbBackend(system, log=log)
        try:
            version = _mi_gdb_version(first)
        except (GdbCommandError, IndexError):
            version = None
        if gdb_usable(version):
            gdb = first
    if gdb is None:
        gdb_path = resolve_gdb(spec.gdb_path)  # gdbPath, else a gdb that sees jitted code
        resolved = shutil.which(gdb_path)
        if first is not None and resolved == system and version is not None:
            gdb = first  # nothing better here: the one already started (what it lacks is said below)
        elif first is not None:
            first.close()
            version = None
        if gdb is None:
            gdb, version = _start_resolved_gdb(resolved, gdb_path, log)
    if version is not None and parse_version(version)[:1] == (15,):
        if gdb is not None:
            gdb.close()
        raise DapError(
            f"gdb {version} cannot see Numba's jitted code (fixed in gdb 16). "
            'Run "python -m pyserver doctor --fix" (gdb 18 from PyPI), or install gdb 13, 14 or 16+, or use "mode": "python".'
        )
    assert gdb is not None
    if version is not None and not gdb_calls_functions(version):
        hint = gdb_that_calls_functions_hint()
        session.client.output(
            f"{gdb_calls_no_functions_text(version)}. For the full debugger, {hint[:1].lower()}{hint[1:]}.\n",
            "console",
        )
    return gdb


def _start_resolved_gdb(
    resolved: str | None, gdb_path: str, log: Any
) -> tuple[GdbBackend | None, str | None]:
    """The gdb resolve_gdb chose, started, and its version from the MI session itself (one gdb start, not
    two); (None, "15.x") for a gdb 15, whose MI session fails on Numba's JIT objects."""
    from pyserver.doctor import gdb_version, parse_version

    if resolved is None:
        raise DapError(
            f"gdb not found ('{gdb_path}'). Install it (Debian/Ubuntu: sudo apt-get install gdb) or set "
            '"gdbPath" in launch.json; "mode": "python" debugs without gdb (jitted code runs as Python).'
        )
    gdb = GdbBackend(resolved, log=log)
    try:
        return gdb, _mi_gdb_version(gdb)
    except (GdbCommandError, IndexError):
        gdb.close()
    version = gdb_version(resolved)
    if version is None or parse_version(version)[:1] != (15,):
        raise DapError(
            f"'{gdb_path}' did not run as gdb with MI ({version or 'no version'}). Set \"gdbPath\" to a working gdb."
        ) from None
    return None, version


def _configure_jit_side(session: Session, jit: JitSide, spec: LaunchSpec | AttachSpec) -> None:
    """gdb's settings for the session, and Python frames read by gdb."""
    configure_gdb(jit.gdb)
    # Steps never enter an array expression's generated kernel (its debug info points at the first
    # lines of the user's file, not at the expression) and, with justMyCode, Numba's own library code.
    skips = [f"skip -rfu {jitframes.ARRAY_EXPR_KERNEL}"]
    if spec.just_my_code:
        skips.append("skip -rfu ^numba::")
    for command in skips:
        try:
            jit.gdb.execute_console(command)
        except GdbCommandError as exc:
            session.client.log(f"{command}: {exc.message}")
    if spec.reverse:
        # A bounded log: the oldest instructions are dropped rather than stopping the program.
        for setting in ("set record full insn-number-max 1000000", "set record full stop-at-limit off"):
            jit.gdb.execute_console(setting)
    try:
        jit.gdb.execute_console(f"source {PYFRAMES_SCRIPT}")
    except GdbCommandError as exc:
        session.client.log(f"no Python frames from gdb: {exc}")


def _launch_under_gdb(session: Session, spec: LaunchSpec) -> None:
    jit = JitSide(session, _start_gdb(session, spec), spec)
    session.jit = jit
    _configure_jit_side(session, jit, spec)
    tty_name = session.debuggee.tty(spec.console, spec.cwd, spec.target)
    if spec.stop_at_jit_function:
        bp, _ = jit.breakpoints.insert_function({"name": spec.stop_at_jit_function}, temporary=True)
        session.client.log(f"stopAtJitFunction -> gdb breakpoint {bp.number}")
    jit.breakpoints.insert_in_code()
    try:
        jit.gdb.execute_console(f"source {LLVM_SYMBOLS_SCRIPT}")
    except GdbCommandError as exc:
        session.client.log(f"libllvmlite's symbols are demangled: {exc}")
    try:
        start_inferior(
            jit.gdb,
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


# --- attach --------------------------------------------------------------------------------------
def attach(session: Session, args: dict[str, Any]) -> None:
    spec = AttachSpec.from_args(args)
    session.debuggee.attach(spec.process_id)
    if spec.process_id is not None:
        _attach_to_process(session, spec.process_id, spec)
        return
    if spec.port is None:
        raise DapError('attach needs "processId", or "host" and "port" where debugpy listens.')
    if spec.host not in ("127.0.0.1", "localhost"):
        raise DapError("Only 127.0.0.1 is supported for attach.")
    start_debugpy(session, spec, spec.port)


def _attach_to_process(session: Session, pid: int, spec: AttachSpec) -> None:
    """gdb attaches for jitted frames; debugpy is injected first (by its own `--pid`, which uses gdb
    too: two tracers cannot hold one process at once)."""
    if not os.path.exists(f"/proc/{pid}"):
        raise DapError(f"No process with id {pid}.")
    gdb_path = shutil.which(resolve_gdb(spec.gdb_path))
    if gdb_path is None:
        raise DapError(
            'gdb not found. Install it (Debian/Ubuntu: sudo apt-get install gdb) or set "gdbPath".'
        )
    # debugpy's injection runs `gdb` from PATH and calls into the program with it: the same gdb as ours,
    # one that can call functions here (another may leave the program's interrupted system call broken).
    path = os.pathsep.join([os.path.dirname(gdb_path), os.environ.get("PATH", "")])
    port = free_port()
    try:
        injected = subprocess.run(
            [spec.python, "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--pid", str(pid)],
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=set_parent_death_signal,
            env={**os.environ, "PATH": path},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DapError(f"Could not inject debugpy into process {pid}: {exc}") from None
    if injected.returncode != 0:
        detail = (injected.stderr or injected.stdout).strip()[-500:]
        raise DapError(ptrace_hint(detail) or f"Could not inject debugpy into process {pid}: {detail}")
    jit = JitSide(session, GdbBackend(gdb_path, log=session.client.log), spec)
    session.jit = jit
    _configure_jit_side(session, jit, spec)
    try:
        mi_target.target_attach(jit.gdb, pid, timeout=120)
    except GdbCommandError as exc:
        raise DapError(ptrace_hint(exc.message) or f"gdb could not attach to {pid}: {exc.message}") from None
    session.stop.update_intent(kind=IntentKind.ATTACH)
    jit.continue_after_attach()
    start_debugpy(session, spec, port)


# --- debugpy -------------------------------------------------------------------------------------
def _listen_failure(session: Session, port: int, alive: Callable[[], bool]) -> str | None:
    """Why the program's debugpy cannot be ready, if it is already known (not after a long time-out)."""
    if "Address already in use" in session.client.program_output_tail:
        return (
            f"debugpy could not listen on 127.0.0.1:{port}: the address is already in use by another "
            "program (the port was taken between choosing it and starting the program). Start the "
            "session again."
        )
    if not alive():
        return "The program ended before debugpy was ready. See the program output above."
    return None


def _wait_debugpy(session: Session, reply: Reply, what: str, port: int, alive: Callable[[], bool]) -> Message:
    deadline = time.monotonic() + DEBUGPY_CONNECT_TIMEOUT_S
    while time.monotonic() < deadline:
        answer = reply.wait(0.25)
        if answer is not None:
            return answer
        failure = _listen_failure(session, port, alive)
        if failure is not None:
            raise DapError(failure)
    raise DapError(f"debugpy did not answer {what!r} within {DEBUGPY_CONNECT_TIMEOUT_S:.0f} s.")


def start_debugpy(session: Session, spec: LaunchSpec | AttachSpec, port: int) -> None:
    """Connect to debugpy in the program; the Python side is there once it is ready."""
    debuggee = session.debuggee
    attached = debuggee.attached
    client = DebugpyClient(session.client.log)
    python = PythonSide(session, client, spec)
    initialized = threading.Event()
    client.add_listener(lambda m: initialized.set() if m.get("event") == "initialized" else None)

    def alive() -> bool:
        # With gdb: gdb runs and saw no exit; a plain child: it runs; an attach to a port: nothing to watch.
        return session.jit.alive() and (not debuggee.runs_plain or debuggee.plain_alive())

    timeout = ATTACH_CONNECT_TIMEOUT_S if attached and not session.jit.present else DEBUGPY_CONNECT_TIMEOUT_S
    try:
        client.connect(port, timeout, alive)
    except ConnectionError as exc:
        failure = _listen_failure(session, port, alive)
        if failure is not None and not attached:
            raise DapError(failure) from None
        if attached:
            raise DapError(f"Nothing answers as debugpy on 127.0.0.1:{port}: {exc}.") from None
        raise DapError(f"The program did not start debugpy: {exc}. See the program output above.") from None
    session.python = python
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
    _wait_debugpy(session, init, "initialize", port, alive)
    # Our own launches run debugpy's in-process server, which takes `launch` (stopOnEntry included);
    # attaching to a program that runs debugpy's adapter takes `attach`.
    start = client.request(
        "attach" if attached else "launch",
        {
            "stopOnEntry": spec.stop_on_entry and not attached,
            "justMyCode": spec.just_my_code,
            # Our bootstrap is never "my code": no stop there when a step leaves the program.
            "rules": [{"path": str(BOOTSTRAP), "include": False}],
            "subProcess": False,
            "redirectOutput": False,
            "showReturnValue": False,
            "connect": {"host": "127.0.0.1", "port": port},
        },
    )
    start.then(lambda r: session.client.log(f"debugpy attach: {r.get('success')} {r.get('message', '')}"))
    deadline = time.monotonic() + DEBUGPY_CONNECT_TIMEOUT_S
    while not initialized.wait(0.25):
        failure = _listen_failure(session, port, alive)
        if failure is not None:
            raise DapError(failure)
        if time.monotonic() > deadline:
            raise DapError("debugpy did not get ready (no 'initialized' event).")
    if debuggee.pid is None:
        debuggee.learn_pid(session.jit.inferior_pid())
    session.client.event("initialized")
