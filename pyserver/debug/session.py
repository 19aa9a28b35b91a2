"""One debug session over two back ends: gdb (jitted frames) and debugpy (Python frames).

The session only coordinates: who owns the stop (gdb, debugpy or nobody), one thread list keyed by
native thread id, one call stack (jitted frames, then their Python callers), breakpoint routing by
source line, stepping across the boundary, and an ending that leaves no process behind.

Threads: the editor's requests are handled one at a time on a worker thread (which also starts gdb, so
gdb's parent-death signal stays armed for the session's life); gdb's async records arrive on the back
end's dispatcher thread and debugpy's events on the client's event thread. Shared state is guarded by
`self._lock`; nothing waits on debugpy while gdb holds the process.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyserver.debug import jitframes
from pyserver.debug.dap import DapError, DapStream, Message
from pyserver.debug.debugpy_client import DebugpyClient, Reply
from pyserver.debug.entry_stop import FirstStatementStop, candidate_files, locate_first_statement, same_file
from pyserver.debug.gdb.backend import GdbBackend, MIRecord, c_string, kill_group, set_parent_death_signal
from pyserver.debug.gdb.launcher import (
    BOOTSTRAP,
    InferiorPty,
    configure_gdb,
    debuggee_argv,
    start_inferior,
)
from pyserver.debug.gdb.mi_protocol import GdbCommandError
from pyserver.debug.stepping import LineStepper
from pyserver.debug.terminal import TerminalHolder, holder_command, wait_for_holder
from pyserver.debug.values_bridge import ValuesBridge
from pyserver.gdb_install import resolve_gdb
from pyserver.versions import install_command, numba_verdict

PYFRAMES_SCRIPT = Path(__file__).resolve().parent / "gdb" / "pyframes_gdb.py"
DEBUGPY_CONNECT_TIMEOUT_S = 90.0
DEBUGPY_REPLY_TIMEOUT_S = 10.0
GDB_TIMEOUT_S = 30.0
SYNC_TIMEOUT_S = 10.0
# debuggee_boot.py gives debugpy's own threads this native name; the thread list leaves them out.
DEBUGGER_THREAD_NAME = "debugpy"
# Python frames of these files are the debugger's own machinery, hidden unless showInternalFrames.
INTERNAL_PY_FILES = ("<frozen runpy>", str(BOOTSTRAP), "/debugpy/", "/pydevd", "_pydev")

# Python run inside the debuggee by gdb (PyRun_SimpleString, GIL held, in a fresh namespace so that
# nothing lands in the user's __main__). Both work in launched and attached programs alike.
# Make debugpy stop at the next line of the Python frame that called the jitted code, the way
# `debugpy.breakpoint()` stops at the next line of its caller.
STOP_IN_PYTHON_CALLER = """
import sys
frame = sys._getframe(1)
while frame is not None and frame.f_code.co_filename == "<string>":
    frame = frame.f_back
try:
    from debugpy.server import api
except ImportError:
    api = None
if api is not None and frame is not None and api.is_client_connected():
    api._settrace(suspend=True, trace_only_current_thread=True, patch_multiprocessing=False, stop_at_frame=frame)
frame = None
"""
# Sleep with the GIL released until the adapter creates `path` (debugpy has answered its backlog).
WAIT_FOR_FILE = """
import os, time
deadline = time.monotonic() + {timeout}
while not os.path.exists({path!r}) and time.monotonic() < deadline:
    time.sleep(0.005)
"""


# Evaluated by debugpy in a Python frame: (module, qualname) of every Numba dispatcher it can see, in
# its globals and locals and as attributes of modules it imported (`kernels.walk(...)`). Objects are
# matched by their type's module first (numba's), so no user `__getattr__` runs. The first iterable of a
# comprehension is evaluated in the frame itself, so locals() is the frame's.
VISIBLE_DISPATCHERS = (
    "sorted({(v.py_func.__module__, v.py_func.__qualname__) for v in [*globals().values(), *locals().values(), "
    "*[a for m in list(globals().values()) if type(m).__name__ == 'module' for a in list(vars(m).values())]] "
    "if type(v).__module__.startswith('numba.') and hasattr(v, 'py_func') and hasattr(v, 'overloads')})"
)

EXCEPTION_FILTERS = [
    {"filter": "raised", "label": "Raised Exceptions", "default": False},
    {"filter": "uncaught", "label": "Uncaught Exceptions", "default": True},
    {"filter": "userUnhandled", "label": "User Uncaught Exceptions", "default": False},
]


@dataclass
class FrameRef:
    kind: str  # jit | internal | gdb-python | debugpy
    thread_id: int  # DAP (native) thread id
    gdb_thread: str = ""
    level: int = 0
    debugpy_frame: int = 0
    path: str = ""
    line: int = 0


@dataclass
class GdbBreakpoint:
    dap_id: int
    number: str
    path: str
    line: int
    log_message: str | None = None
    function: str | None = None
    verified: bool = False
    temporary: bool = False
    hit_mode: str = ""  # "" | "==" | ">=" | ">" | "%"
    hit_n: int = 0
    hits: int = 0
    parfor_only: bool = False  # set on "<string>" lines: only a parfor gufunc's stop is this breakpoint


# A source file of Numba itself (its overload bodies, e.g. numba/misc/gdb_hook.py), never the user's.
NUMBA_OWN_SOURCE = re.compile(r"[/\\]numba[/\\](misc|core|np|cpython|typed|experimental)[/\\]")


@dataclass
class SourceBreakpoints:
    gdb: list[GdbBreakpoint] = field(default_factory=list)
    debugpy_ids: dict[int, int] = field(default_factory=dict)  # debugpy id -> our id
    # The editor's breakpoints of this source that debugpy holds (None: never set).
    python_requested: list[dict[str, Any]] | None = None


class Session:
    def __init__(self, stream: DapStream, log: Callable[[str], None] | None = None) -> None:
        self.stream = stream
        self.log = log or (lambda _msg: None)
        self._lock = threading.RLock()
        self._requests: queue.Queue[Message | None] = queue.Queue()
        self.mode = "mixed"
        self.gdb: GdbBackend | None = None
        self.debugpy: DebugpyClient | None = None
        self.pty: InferiorPty | None = None
        self.process: subprocess.Popen[bytes] | None = None  # python/cudasim modes
        self.inferior_pid: int | None = None
        self.owner: str | None = None  # "gdb" | "debugpy" | None
        self.stopped_thread: int | None = None
        self.show_internal = False
        self.just_my_code = True
        self.attached = False
        self.ended = threading.Event()
        self._terminated_sent = False
        self._next_id = 1
        self.frames: dict[int, FrameRef] = {}
        self.var_refs: dict[int, tuple[str, Any]] = {}  # our ref -> ("debugpy", ref) | ("jit", handle)
        self.sources: dict[str, SourceBreakpoints] = {}
        self.function_bps: list[GdbBreakpoint] = []
        self.gdb_bps: dict[str, GdbBreakpoint] = {}  # gdb number -> breakpoint
        self.step_in_temps: list[str] = []
        self.debugpy_threads: dict[int, int] = {}  # debugpy id -> native id
        self.native_to_debugpy: dict[int, int] = {}
        self.thread_names: dict[int, str] = {}
        self.gdb_threads: dict[int, str] = {}  # native id -> gdb thread id
        self.values: ValuesBridge | None = None
        # Where the debuggee writes which SSA version is live at each line (pyserver/debug/live_versions.py).
        self.live_versions_dir: str | None = None
        # gdb numbers of the breakpoints the session deleted (a hit read after the delete is no stop).
        self._deleted_gdb_bps: set[str] = set()
        # The debugpy thread of a Python step not yet ended by a debugpy stop (see _cancel_debugpy_step).
        self._debugpy_step_thread: int | None = None
        self._pause_via_gdb = False
        self._drop_debugpy_pause = False
        self._step_to_python_pending = False
        self._exit_code: int | None = None
        self._last_bp_record: dict[str, Any] = {}
        # debugpy requests made while gdb held the process, not answered yet.
        self._debugpy_backlog: list[Reply] = []
        self._sync_dir: str | None = None
        self._attach_continue = False
        self._detaching = False
        self.stop_on_entry = False
        self._last_signal: dict[str, str] = {}
        self._first_statement_stop: FirstStatementStop | None = (
            None  # stopAtJitFunction in modes python and cudasim
        )
        self._debugpy_function_ids: dict[int, int] = {}  # debugpy's function breakpoint id -> ours
        self._reverse: dict[int, tuple[threading.Event, list[Message]]] = {}
        self._in_code_bp_number: str | None = None
        self._finishing_in_code_bp = False
        self._watching_debuggee = False
        self._shutting_down = False
        self._program_output_tail = ""
        self.record_reverse = False  # launch attribute "reverse"
        self._recording = False
        self._reverse_pending = False
        self._forward_continue = False  # a Continue while recording: it may end at the end of the replay
        self.parfor_sources: dict[str, str] = {}  # user file with prange breakpoints -> its function
        self.worker_names: dict[int, str] = {}  # native id -> "numba worker N"
        self.client_runs_in_terminal = False
        self.terminal: TerminalHolder | None = None
        self.console = "internalConsole"
        self._stepper: LineStepper | None = None  # with gdb: the step from a jitted line in flight

    # --- main loop -----------------------------------------------------------------------------------
    def serve(self) -> int:
        worker = threading.Thread(target=self._work, name="dap-requests", daemon=True)
        worker.start()
        while True:
            try:
                message = self.stream.read()
            except (OSError, ValueError) as exc:
                self.log(f"client stream error: {exc}")
                message = None
            if message is None:
                break
            if message.get("type") == "request":
                self._requests.put(message)
            elif message.get("type") == "response":
                with self._lock:
                    waiter = self._reverse.pop(int(message.get("request_seq", -1)), None)
                if waiter is not None:
                    waiter[1].append(message)
                    waiter[0].set()
        # The editor went away: end everything.
        self._requests.put({"type": "request", "command": "disconnect", "seq": 0, "_eof": True})
        self._requests.put(None)
        worker.join(30)
        self.shutdown()
        return 0

    def _work(self) -> None:
        while True:
            request = self._requests.get()
            if request is None:
                return
            self.handle(request)

    def handle(self, request: Message) -> None:
        command = str(request.get("command", ""))
        handler = getattr(self, "on_" + re.sub(r"(?<!^)(?=[A-Z])", "_", command).lower(), None)
        if handler is None:
            if request.get("_eof") is None:
                self.stream.respond(request, success=False, message=f"unsupported request '{command}'")
            return
        try:
            body = handler(request.get("arguments") or {})
        except DapError as exc:
            self.stream.respond(request, success=False, message=str(exc), show_user=exc.show_user)
            return
        except GdbCommandError as exc:
            self.stream.respond(request, success=False, message=f"gdb: {exc.message}")
            return
        except Exception as exc:  # the adapter stays alive whatever a request does
            self.log(f"{command} failed: {exc!r}")
            import traceback

            self.log(traceback.format_exc())
            self.stream.respond(request, success=False, message=f"{command} failed: {exc}")
            return
        if request.get("_eof") is None:
            try:
                self.stream.respond(request, body if isinstance(body, dict) else None)
            except (TypeError, ValueError) as exc:  # an unserialisable body must not end the worker
                self.log(f"{command}: bad response body: {exc!r}")
                self.stream.respond(request, success=False, message=f"{command} failed: {exc}")

    def reverse_request(self, command: str, arguments: dict[str, Any], timeout: float) -> Message | None:
        """A request to the editor (runInTerminal); its response, or None."""
        done = threading.Event()
        box: list[Message] = []
        with self._lock:
            seq = self.stream.request(command, arguments)
            self._reverse[seq] = (done, box)
        done.wait(timeout)
        return box[0] if box else None

    def _terminal(self, cwd: str, title: str) -> TerminalHolder | None:
        """The editor's integrated terminal for the program (console: integratedTerminal), or None."""
        if not self.client_runs_in_terminal:
            self.output("The editor cannot run a terminal: the program's output goes to this console.\n")
            return None
        command, report = holder_command(sys.executable)
        response = self.reverse_request(
            "runInTerminal", {"kind": "integrated", "title": title, "cwd": cwd, "args": command}, 60.0
        )
        if response is None or not response.get("success"):
            self.output("The terminal did not start: the program's output goes to this console.\n")
            return None
        holder = wait_for_holder(report, 60.0)
        if holder is None:
            self.output("The terminal did not report: the program's output goes to this console.\n")
        return holder

    def new_id(self) -> int:
        with self._lock:
            value = self._next_id
            self._next_id += 1
            return value

    def output(self, text: str, category: str = "console") -> None:
        if category in ("stdout", "stderr"):
            self._program_output_tail = (self._program_output_tail + text)[-8000:]
        self.stream.event("output", {"category": category, "output": text})

    def _debugpy_listen_failure(self, port: int, alive: Callable[[], bool]) -> str | None:
        """Why the program's debugpy cannot be ready, if it is already known (not after a long time-out)."""
        if "Address already in use" in self._program_output_tail:
            return (
                f"debugpy could not listen on 127.0.0.1:{port}: the address is already in use by another "
                "program (the port was taken between choosing it and starting the program). Start the "
                "session again."
            )
        if not alive():
            return "The program ended before debugpy was ready. See the program output above."
        return None

    def _wait_debugpy(self, reply: Reply, what: str, port: int, alive: Callable[[], bool]) -> Message:
        deadline = time.monotonic() + DEBUGPY_CONNECT_TIMEOUT_S
        while time.monotonic() < deadline:
            answer = reply.wait(0.25)
            if answer is not None:
                return answer
            failure = self._debugpy_listen_failure(port, alive)
            if failure is not None:
                raise DapError(failure)
        raise DapError(f"debugpy did not answer {what!r} within {DEBUGPY_CONNECT_TIMEOUT_S:.0f} s.")

    # --- initialize / launch -------------------------------------------------------------------------
    def on_initialize(self, args: dict[str, Any]) -> dict[str, Any]:
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

    def on_launch(self, args: dict[str, Any]) -> dict[str, Any]:
        self.mode = str(args.get("mode") or "mixed")
        if self.mode not in ("mixed", "python", "cudasim"):
            raise DapError(f'Unknown "mode": {self.mode!r}. Use "mixed", "python" or "cudasim".')
        self.show_internal = bool(args.get("showInternalFrames", False))
        self.just_my_code = bool(args.get("justMyCode", True))
        self.stop_on_entry = bool(args.get("stopOnEntry", False))
        self.console = str(args.get("console") or "internalConsole")
        self.record_reverse = bool(args.get("reverse", False)) and self.mode == "mixed"
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
            program = (
                str(Path(cwd, str(program)).resolve()) if not os.path.isabs(str(program)) else str(program)
            )
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
        argv_args = [str(a) for a in (args.get("args") or [])]
        if self.mode in ("python", "cudasim") and args.get("stopAtJitFunction"):
            self._first_statement_stop = self._locate_first_statement_stop(
                str(args["stopAtJitFunction"]), program, cwd, env, argv_args
            )
        port = free_port()
        if self.mode == "mixed":
            self._launch_mixed(args, python, program, module, argv_args, env, cwd, port)
        else:
            self._launch_plain(python, program, module, argv_args, env, cwd, port)
        self._start_debugpy(port, args)
        return {}

    def _locate_first_statement_stop(
        self, target: str, program: str | None, cwd: str, env: dict[str, str | None], argv_args: list[str]
    ) -> FirstStatementStop | None:
        """stopAtJitFunction in modes python and cudasim: the one-shot stop on the function's first
        statement (pyserver/debug/entry_stop.py), or None (said to the user) when it is not found."""
        name, candidates = candidate_files(target, program, cwd, env, argv_args)
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

    def _debuggee_env(self, args: dict[str, Any]) -> dict[str, str | None]:
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
                self.live_versions_dir = tempfile.mkdtemp(prefix="numba-lens-")
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

    def _check_numba(self, python: str, env: dict[str, str | None]) -> None:
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
            raise DapError(
                f"debugpy is not installed in {python}. Install it: {python} -m pip install debugpy"
            )

    def _launch_mixed(
        self,
        args: dict[str, Any],
        python: str,
        program: str | None,
        module: str | None,
        argv_args: list[str],
        env: dict[str, str | None],
        cwd: str,
        port: int,
    ) -> None:
        from pyserver.doctor import gdb_version, parse_version

        gdb_path = resolve_gdb(args.get("gdbPath"))  # gdbPath, else a gdb that sees jitted code
        resolved = shutil.which(gdb_path)
        if resolved is None:
            raise DapError(
                f"gdb not found ('{gdb_path}'). Install it (Debian/Ubuntu: sudo apt-get install gdb) or set "
                '"gdbPath" in launch.json; "mode": "python" debugs without gdb (jitted code runs as Python).'
            )
        # The version comes from the MI session itself (one gdb start, not two).
        self.gdb = GdbBackend(resolved, log=self.log)
        self._stepper = LineStepper(self.gdb, self._gdb_resume, self.just_my_code, self.log)
        try:
            first_line = self.gdb.execute_console("show version", timeout=60).strip().splitlines()[0]
            match = re.search(r"(\d+\.\d+(?:\.\d+)?)\s*$", first_line) or re.search(r"(\d+\.\d+)", first_line)
            version: str | None = match.group(1) if match else None
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
        tty_name = self._program_tty(cwd, program or module or "")
        stop_at = args.get("stopAtJitFunction")
        if stop_at:
            bp = self._insert_function_breakpoint({"name": str(stop_at)}, temporary=True)
            self.log(f"stopAtJitFunction -> gdb breakpoint {bp.number}")
        self._insert_in_code_breakpoint()
        try:
            start_inferior(
                self.gdb,
                python=python,
                argv=debuggee_argv(program=program, module=module, args=argv_args, debugpy_port=port),
                env=env,
                cwd=cwd,
                tty_name=tty_name,
            )
        except GdbCommandError as exc:
            hint = ptrace_hint(exc.message)
            raise DapError(hint or f"gdb could not start the program: {exc.message}") from None

    def _configure_stepping(self) -> None:
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

    def _insert_in_code_breakpoint(self) -> None:
        """`numba.gdb_breakpoint()` (and, under the adapter, `numba.gdb()`: see debuggee_boot.py) call the C
        function numba_gdb_breakpoint: break there (pending until Numba's helper library loads), then
        finish to the jitted caller, so the stop shows the user's line, not Numba's helper."""
        assert self.gdb is not None
        try:
            reply = self.gdb.execute("-break-insert -f numba_gdb_breakpoint")
            self._in_code_bp_number = str(reply.get("bkpt", {}).get("number"))
        except GdbCommandError as exc:
            self.log(f"no in-code breakpoints: {exc.message}")

    def _launch_plain(
        self,
        python: str,
        program: str | None,
        module: str | None,
        argv_args: list[str],
        env: dict[str, str | None],
        cwd: str,
        port: int,
    ) -> None:
        full_env = dict(os.environ)
        for key, value in env.items():
            if value is None:
                full_env.pop(key, None)
            else:
                full_env[key] = value
        tty_name = self._program_tty(cwd, program or module or "")
        tty_fd = self.pty.slave_fd if self.pty is not None else os.open(tty_name, os.O_RDWR | os.O_NOCTTY)
        self.process = subprocess.Popen(
            [python, *debuggee_argv(program=program, module=module, args=argv_args, debugpy_port=port)],
            stdin=tty_fd,
            stdout=tty_fd,
            stderr=tty_fd,
            cwd=cwd,
            env=full_env,
            start_new_session=True,
            preexec_fn=set_parent_death_signal,
        )
        if self.pty is None:
            os.close(tty_fd)
        self.inferior_pid = self.process.pid
        threading.Thread(target=self._watch_plain_process, name="debuggee-wait", daemon=True).start()

    def _program_tty(self, cwd: str, target: str) -> str:
        """The terminal device for the program: the editor's terminal, or our pty feeding the console."""
        if self.console == "integratedTerminal":
            self.terminal = self._terminal(cwd, f"Numba Lens: {os.path.basename(target)}")
            if self.terminal is not None:
                return self.terminal.tty
        self.pty = InferiorPty(lambda text: self.output(text, "stdout"))
        return self.pty.name

    def _watch_plain_process(self) -> None:
        assert self.process is not None
        code = self.process.wait()
        self._program_exited(code)

    def _start_debugpy(self, port: int, args: dict[str, Any], *, connect_only: bool = False) -> None:
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
            client.connect(
                port, 10.0 if self.attached and self.gdb is None else DEBUGPY_CONNECT_TIMEOUT_S, alive
            )
        except ConnectionError as exc:
            failure = self._debugpy_listen_failure(port, alive)
            if failure is not None and not self.attached:
                raise DapError(failure) from None
            if self.attached:
                raise DapError(f"Nothing answers as debugpy on 127.0.0.1:{port}: {exc}.") from None
            raise DapError(
                f"The program did not start debugpy: {exc}. See the program output above."
            ) from None
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

    def _wait_gdb_stopped_then_continue(self) -> None:
        assert self.gdb is not None
        deadline = time.monotonic() + GDB_TIMEOUT_S
        while self.owner != "gdb" and time.monotonic() < deadline:
            time.sleep(0.02)
        self._attach_continue = False
        self._gdb_resume("-exec-continue")

    def _gdb_inferior_pid(self) -> int | None:
        assert self.gdb is not None
        try:
            groups = self.gdb.execute("-list-thread-groups")["groups"]
            return int(groups[0]["pid"])
        except (GdbCommandError, KeyError, IndexError, ValueError):
            return None

    def on_attach(self, args: dict[str, Any]) -> dict[str, Any]:
        self.attached = True
        self.show_internal = bool(args.get("showInternalFrames", False))
        self.just_my_code = bool(args.get("justMyCode", True))
        connect = args.get("connect") or {}
        host = str(args.get("host") or connect.get("host") or "127.0.0.1")
        port = args.get("port") or connect.get("port")
        process_id = args.get("processId")
        if process_id and not port:
            self._attach_to_process(int(process_id), args)
            return {}
        self.mode = "python"
        if not port:
            raise DapError('attach needs "processId", or "host" and "port" where debugpy listens.')
        if host not in ("127.0.0.1", "localhost"):
            raise DapError("Only 127.0.0.1 is supported for attach.")
        self._start_debugpy(int(port), args)
        return {}

    def _attach_to_process(self, pid: int, args: dict[str, Any]) -> None:
        """gdb attaches for jitted frames; debugpy is injected first (by its own `--pid`, which uses gdb
        too: two tracers cannot hold one process at once)."""
        if not os.path.exists(f"/proc/{pid}"):
            raise DapError(f"No process with id {pid}.")
        self.mode = "mixed"
        self.inferior_pid = pid
        port = free_port()
        python = str(args.get("python") or sys.executable)
        try:
            injected = subprocess.run(
                [python, "-m", "debugpy", "--listen", f"127.0.0.1:{port}", "--pid", str(pid)],
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
        gdb_path = shutil.which(resolve_gdb(args.get("gdbPath")))
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
            self.gdb.execute(f"-target-attach {pid}", timeout=120)
        except GdbCommandError as exc:
            raise DapError(
                ptrace_hint(exc.message) or f"gdb could not attach to {pid}: {exc.message}"
            ) from None
        self._attach_continue = True
        self._start_debugpy(port, args, connect_only=True)

    def on_configuration_done(self, args: dict[str, Any]) -> dict[str, Any]:
        self._send_first_statement_stop()
        if self.debugpy is not None:
            reply = self.debugpy.request("configurationDone")
            reply.wait(DEBUGPY_REPLY_TIMEOUT_S)
        return {}

    def on_set_exception_breakpoints(self, args: dict[str, Any]) -> dict[str, Any]:
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

    # --- breakpoints ---------------------------------------------------------------------------------
    def _jitted_functions(self, path: str) -> list[Any]:
        if self.mode != "mixed":
            return []
        try:
            from pyserver.analysis.discovery import find_jitted_functions

            return find_jitted_functions(Path(path).read_text(encoding="utf-8"), path)
        except (OSError, SyntaxError, UnicodeDecodeError, ImportError) as exc:
            self.log(f"no jitted functions from {path}: {exc}")
            return []

    def on_set_breakpoints(self, args: dict[str, Any]) -> dict[str, Any]:
        source = args.get("source") or {}
        path = str(source.get("path") or "")
        requested = list(args.get("breakpoints") or [{"line": line} for line in args.get("lines") or []])
        functions = self._jitted_functions(path) if path else []

        def in_jit(line: int) -> bool:
            return any(f.def_line <= line <= f.end_line for f in functions)

        state = self.sources.setdefault(path, SourceBreakpoints())
        results: list[dict[str, Any] | None] = [None] * len(requested)
        # gdb side: replace this source's breakpoints.
        if self.gdb is not None:
            for old in state.gdb:
                self._delete_gdb_breakpoint(old.number)
            state.gdb = []
        prange_lines = prange_body_lines(path, functions)
        for index, bp in enumerate(requested):
            line = int(bp.get("line", 0))
            if self.gdb is not None and line in prange_lines:
                # The body runs in a separate gufunc whose debug info names the file "<string>" (with the
                # user's line numbers): break there, not at the outer function's nearest line.
                self.parfor_sources[path] = prange_lines[line]
                results[index] = self._insert_line_breakpoint(path, bp, state, gdb_file="<string>")
            elif self.gdb is not None and in_jit(line):
                results[index] = self._insert_line_breakpoint(path, bp, state)
        # debugpy side: everything else, in one request for the whole source.
        python_indexes = [i for i, r in enumerate(results) if r is None]
        if self.debugpy is not None or python_indexes:
            python_bps = [requested[i] for i in python_indexes]
            placeholders = self._set_python_breakpoints(source, python_bps, state)
            for i, result in zip(python_indexes, placeholders, strict=True):
                results[i] = result
        return {"breakpoints": results}

    @staticmethod
    def _parse_hit_condition(hit_condition: str | None) -> tuple[str, int]:
        """`N` or `==N` (stop once, at the N-th hit, as debugpy does), `>=N`, `>N`, `%N`."""
        if not hit_condition or not hit_condition.strip():
            return "", 0
        match = re.fullmatch(r"\s*(==|>=|>|%)?\s*(\d+)\s*", hit_condition)
        if not match or int(match.group(2)) < 1:
            raise DapError(
                f"Hit count '{hit_condition}' in jitted code: use N or ==N (the N-th hit), >=N, >N or %N."
            )
        return match.group(1) or "==", int(match.group(2))

    @staticmethod
    def _ignore_count(mode: str, n: int) -> int:
        """gdb's ignore count for a hit condition (%N is counted by the adapter)."""
        return {"==": n - 1, ">=": n - 1, ">": n}.get(mode, 0)

    def _insert_line_breakpoint(
        self, path: str, bp: dict[str, Any], state: SourceBreakpoints, *, gdb_file: str | None = None
    ) -> dict[str, Any]:
        assert self.gdb is not None
        line = int(bp["line"])
        options = ["-f"]
        condition = bp.get("condition")
        if condition:
            options.append(f"-c {c_string(str(condition))}")
        try:
            hit_mode, hit_n = self._parse_hit_condition(bp.get("hitCondition"))
        except DapError as exc:
            return {"id": self.new_id(), "verified": False, "line": line, "message": str(exc)}
        ignore = self._ignore_count(hit_mode, hit_n)
        if ignore:
            options.append(f"-i {ignore}")
        location = (
            c_string(f"{path}:{line}") if gdb_file is None else f"--source {c_string(gdb_file)} --line {line}"
        )
        try:
            reply = self.gdb.execute(f"-break-insert {' '.join(options)} {location}")
        except GdbCommandError as exc:
            return {"id": self.new_id(), "verified": False, "line": line, "message": exc.message}
        record = reply.get("bkpt", {})
        created = GdbBreakpoint(self.new_id(), str(record.get("number")), path, line, bp.get("logMessage"))
        created.hit_mode, created.hit_n = hit_mode, hit_n
        created.parfor_only = gdb_file is not None
        state.gdb.append(created)
        with self._lock:
            self.gdb_bps[created.number] = created
        return self._gdb_bp_to_dap(created, record)

    def _gdb_bp_to_dap(self, bp: GdbBreakpoint, record: dict[str, Any]) -> dict[str, Any]:
        pending = record.get("addr") == "<PENDING>" or "pending" in record
        locations = record.get("locations") or []
        line = bp.line
        if not pending:
            line_text = record.get("line") or (locations[0].get("line") if locations else None)
            if line_text:
                line = int(line_text)
        bp.verified = not pending
        result: dict[str, Any] = {"id": bp.dap_id, "verified": bp.verified}
        if bp.path:
            result["source"] = {"path": bp.path, "name": os.path.basename(bp.path)}
            result["line"] = line
        if pending:
            what = bp.function or "this function"
            result["message"] = f"Pending: set when Numba compiles {what} (gdb)"
            result["reason"] = "pending"
        return result

    def _delete_gdb_breakpoint(self, number: str) -> None:
        assert self.gdb is not None
        with self._lock:
            self.gdb_bps.pop(number, None)
            self._deleted_gdb_bps.add(number)
        try:
            self.gdb.execute(f"-break-delete {number}")
        except GdbCommandError as exc:
            self.log(f"-break-delete {number}: {exc.message}")

    def _first_statement_stop_in(self, path: str, bps: list[dict[str, Any]]) -> FirstStatementStop | None:
        """The pending first-statement stop to send with this source's breakpoints, if any."""
        stop = self._first_statement_stop
        return stop if stop is not None and stop.pending_in(path, bps) else None

    def _set_python_breakpoints(
        self, source: dict[str, Any], bps: list[dict[str, Any]], state: SourceBreakpoints
    ) -> list[dict[str, Any]]:
        our_ids = [self.new_id() for _ in bps]
        with self._lock:
            state.python_requested = list(bps)
        placeholders = [
            {
                "id": our_id,
                "verified": False,
                "line": int(bp.get("line", 0)),
                "message": "Waiting for debugpy",
            }
            for our_id, bp in zip(our_ids, bps, strict=True)
        ]
        if self.debugpy is None:
            return placeholders
        first_statement_stop = self._first_statement_stop_in(str(source.get("path") or ""), bps)
        sent = bps + ([first_statement_stop.as_breakpoint()] if first_statement_stop is not None else [])
        sent_ids = our_ids + ([first_statement_stop.dap_id] if first_statement_stop is not None else [])
        reply = self.debugpy.request("setBreakpoints", {"source": source, "breakpoints": sent})

        def translate(response: Message) -> list[dict[str, Any]]:
            out = []
            their = (response.get("body") or {}).get("breakpoints") or []
            with self._lock:
                state.debugpy_ids = {}
                for index, (our_id, theirs) in enumerate(zip(sent_ids, their, strict=False)):
                    item = dict(theirs)
                    if "id" in theirs:
                        state.debugpy_ids[int(theirs["id"])] = our_id
                    if index >= len(bps):
                        continue  # the first-statement stop: not the editor's
                    item["id"] = our_id
                    item.setdefault("line", placeholders[index]["line"])
                    out.append(item)
            return out

        held_by_gdb = self.owner == "gdb"
        if not held_by_gdb:
            response = reply.wait(self._debugpy_patience())
            if response is not None and response.get("success"):
                translated = translate(response)
                if len(translated) == len(bps):
                    return translated

        # debugpy cannot answer now (gdb holds the process): tell the editor when it does.
        def later(response: Message) -> None:
            if response.get("success"):
                for item in translate(response):
                    self.stream.event("breakpoint", {"reason": "changed", "breakpoint": item})

        reply.then(later)
        if held_by_gdb:
            with self._lock:
                self._debugpy_backlog.append(reply)
        for placeholder in placeholders:
            placeholder["message"] = (
                "Set when the program resumes (gdb holds it now)"
                if held_by_gdb
                else "Set when debugpy can answer (the program is in native code that holds the GIL)"
            )
        return placeholders

    def _send_first_statement_stop(self) -> None:
        """Before configurationDone: the first-statement stop goes to debugpy even if the editor has no breakpoint
        in the kernel's file."""
        stop = self._first_statement_stop
        if stop is None or self.debugpy is None:
            return
        with self._lock:
            already = any(
                same_file(path, stop.path) and state.python_requested is not None
                for path, state in self.sources.items()
            )
        if not already:
            state = self.sources.setdefault(stop.path, SourceBreakpoints())
            self._set_python_breakpoints({"path": stop.path, "name": os.path.basename(stop.path)}, [], state)

    def _debugpy_patience(self) -> float:
        """How long a request may wait for debugpy. While the program runs in mixed mode, a thread in
        jitted code may hold the GIL for minutes: answer the editor soon and update it later."""
        if self.owner == "debugpy" or self.gdb is None:
            return DEBUGPY_REPLY_TIMEOUT_S
        return 2.0

    def on_set_function_breakpoints(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.gdb is None:
            return {
                "breakpoints": self._set_debugpy_function_breakpoints(list(args.get("breakpoints") or []))
            }
        for old in self.function_bps:
            self._delete_gdb_breakpoint(old.number)
        self.function_bps = []
        results = []
        for bp in args.get("breakpoints") or []:
            try:
                created = self._insert_function_breakpoint(bp)
            except (GdbCommandError, DapError) as exc:
                message = exc.message if isinstance(exc, GdbCommandError) else str(exc)
                results.append({"id": self.new_id(), "verified": False, "message": message})
                continue
            self.function_bps.append(created)
            results.append(self._gdb_bp_to_dap(created, self._last_bp_record))
        return {"breakpoints": results}

    def _set_debugpy_function_breakpoints(self, bps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Modes python and cudasim: jitted functions run as Python, so debugpy's function breakpoints
        (matched on the function's name) stop in them. VS Code sends this request, often empty, at every
        start: it never fails as a whole."""
        if not bps and self.debugpy is None:
            return []
        our_ids = [self.new_id() for _ in bps]
        sent = [{**bp, "name": str(bp.get("name", "")).split("::")[-1].split(".")[-1]} for bp in bps]
        response = None
        if self.debugpy is not None:
            response = self.debugpy.request("setFunctionBreakpoints", {"breakpoints": sent}).wait(
                self._debugpy_patience()
            )
        if response is None or not response.get("success"):
            reason = (response or {}).get("message") or "debugpy did not answer"
            return [
                {"id": our_id, "verified": False, "message": f"Function breakpoint not set: {reason}"}
                for our_id in our_ids
            ]
        theirs = (response.get("body") or {}).get("breakpoints") or []
        results = []
        with self._lock:
            self._debugpy_function_ids = {}
            for our_id, their in zip(our_ids, theirs, strict=False):
                if "id" in their:
                    self._debugpy_function_ids[int(their["id"])] = our_id
                results.append({**their, "id": our_id})
        return results

    def _insert_function_breakpoint(self, bp: dict[str, Any], *, temporary: bool = False) -> GdbBreakpoint:
        assert self.gdb is not None
        name = str(bp.get("name", "")).strip()
        if not name:
            raise DapError(
                "A function breakpoint needs the jitted function's name, e.g. walk or __main__::walk."
            )
        qualified = (
            name
            if "::" in name
            else "::".join(["__main__", *name.split(".")])
            if "." not in name
            else (name.replace(".", "::"))
        )
        options = ["-f", "--qualified"]
        if temporary:
            options.append("-t")
        if bp.get("condition"):
            options.append(f"-c {c_string(str(bp['condition']))}")
        hit_mode, hit_n = self._parse_hit_condition(bp.get("hitCondition"))
        ignore = self._ignore_count(hit_mode, hit_n)
        if ignore:
            options.append(f"-i {ignore}")
        reply = self.gdb.execute(f"-break-insert {' '.join(options)} {qualified}")
        record = reply.get("bkpt", {})
        self._last_bp_record = record
        created = GdbBreakpoint(
            self.new_id(), str(record.get("number")), "", 0, None, name, temporary=temporary
        )
        created.hit_mode, created.hit_n = hit_mode, hit_n
        with self._lock:
            self.gdb_bps[created.number] = created
        return created

    # --- gdb events ----------------------------------------------------------------------------------
    def _on_gdb_record(self, record: MIRecord) -> None:
        if record.message == "breakpoint-modified":
            self._on_breakpoint_modified(record.payload.get("bkpt", {}))
        elif record.message == "stopped":
            self._on_gdb_stopped(record.payload)
        elif record.message == "thread-group-exited" and not self._detaching:
            code = record.payload.get("exit-code")
            if code:
                self._program_exited(int(code, 8))
            else:
                # Killed by a signal: the *stopped "exited-signalled" that follows says which.
                timer = threading.Timer(2.0, self._program_exited, args=(None,))
                timer.daemon = True
                timer.start()
        elif record.message == "thread-group-started":
            try:
                self.inferior_pid = int(record.payload.get("pid", 0)) or self.inferior_pid
            except ValueError:
                pass
            if self.inferior_pid and not self._watching_debuggee:
                self._watching_debuggee = True
                threading.Thread(target=self._watch_debuggee, name="debuggee-watch", daemon=True).start()
        elif record.message == "gdb-exited" and not self._detaching:
            if not self.ended.is_set() and self._exit_code is None and not self._shutting_down:
                self.output(
                    "gdb exited unexpectedly (it was killed or crashed): the debug session ends. "
                    "The program ended with it.\n",
                    "important",
                )
                self._program_exited(128 + signal.SIGKILL)  # the debuggee dies with gdb (PR_SET_PDEATHSIG)

    def _watch_debuggee(self) -> None:
        """gdb notices a debuggee killed while stopped only when it resumes it: watch the pid, and when it
        has died (a zombie gdb has not reaped yet), let gdb resume so that it reports the exit status."""
        pid = self.inferior_pid
        while pid and not self.ended.wait(0.5):
            dead = process_is_dead(pid)
            if not dead or self._detaching or self._shutting_down:
                continue
            if self.owner == "gdb" and self.gdb is not None:
                self.log(f"debuggee {pid} died while stopped: resuming gdb to collect its exit status")
                try:
                    self._resumed()
                    self.gdb.execute("-exec-continue --all", timeout=10)
                except GdbCommandError as exc:
                    self.log(f"-exec-continue after the debuggee died: {exc.message}")
            if not self.ended.wait(5.0):
                self.output(f"The program (pid {pid}) ended while it was stopped.\n", "important")
                self._program_exited(-1)  # its exit status is unknown
            return

    def _on_breakpoint_modified(self, record: dict[str, Any]) -> None:
        with self._lock:
            bp = self.gdb_bps.get(str(record.get("number")))
        if bp is None:
            return
        was = bp.verified
        dap = self._gdb_bp_to_dap(bp, record)
        if bp.verified and not was:
            self.stream.event("breakpoint", {"reason": "changed", "breakpoint": dap})

    def _resumed(self) -> None:
        self._last_signal = {}
        with self._lock:
            self.owner = None
            self.stopped_thread = None
            self.frames.clear()
            self.var_refs.clear()
        if self.values is not None:
            self.values.reset()

    def _on_gdb_stopped(self, payload: dict[str, Any]) -> None:
        reason = str(payload.get("reason", ""))
        if reason == "exited-signalled":
            name = str(payload.get("signal-name", ""))
            number = getattr(signal, name, None) if name.startswith("SIG") else None
            self.output(
                f"The program was killed by {name} ({payload.get('signal-meaning', '')}).\n", "important"
            )
            self._program_exited(128 + int(number) if number is not None else None)
            return
        if reason.startswith("exited"):
            code = payload.get("exit-code")
            self._program_exited(int(code, 8) if code else 0)
            return
        assert self.gdb is not None
        gdb_thread = str(payload.get("thread-id") or "1")
        frame = payload.get("frame") or {}
        native = self._native_of_gdb_thread(gdb_thread)
        with self._lock:
            self.owner = "gdb"
            self.stopped_thread = native
            self.frames.clear()
            self.var_refs.clear()
        if self.values is not None:
            self.values.reset()
        with self._lock:
            bp = self.gdb_bps.get(str(payload.get("bkptno"))) if reason == "breakpoint-hit" else None
        self._delete_step_in_temps()
        forward_continue, self._forward_continue = self._forward_continue, False
        if forward_continue and reason in ("", "no-history"):
            # A Continue after reverse steps replays the recording up to its end and stops there ("No more
            # reverse-execution history"): the user asked to continue, so run on live (still recording).
            self._forward_continue = True
            self._gdb_resume("-exec-continue")
            return
        if self._recording and reason == "signal-received" and str(payload.get("signal-name")) == "0":
            # gdb could not record an instruction (AVX code outside the jitted functions, e.g. glibc's
            # memcpy once a Continue left them): the recording ends here; a Continue runs on.
            self._update_recording({})
            if forward_continue:
                self._gdb_resume("-exec-continue")
                return
            reason = "end-stepping-range"
        if self._stepper is not None and self._stepper.active is not None:
            verdict = self._stepper.on_stop(reason, payload, gdb_thread, frame)
            if verdict == "absorbed":
                return
            if verdict == "step":
                reason = "end-stepping-range"
        body: dict[str, Any] = {"threadId": native, "allThreadsStopped": True}
        if reason == "breakpoint-hit" and str(payload.get("bkptno")) == self._in_code_bp_number:
            # In Numba's helper: finish to the jitted caller; that stop is reported as the breakpoint.
            self._finishing_in_code_bp = True
            self._resumed()
            self.gdb.execute(f"-exec-finish --thread {gdb_thread} --frame 0")
            return
        if self._finishing_in_code_bp:
            if NUMBA_OWN_SOURCE.search(str(frame.get("fullname") or frame.get("file") or "")):
                # numba.gdb()'s overload body (numba/misc/gdb_hook.py): one more level to the user's line.
                self._resumed()
                self.gdb.execute(f"-exec-finish --thread {gdb_thread} --frame 0")
                return
            self._finishing_in_code_bp = False
            self._pause_via_gdb = False
            self._update_recording(frame)
            self.stream.event(
                "stopped", {**body, "reason": "breakpoint", "description": "numba.gdb_breakpoint()"}
            )
            return
        if reason == "breakpoint-hit":
            if bp is None and str(payload.get("bkptno")) in self._deleted_gdb_bps:
                # A breakpoint deleted while the program ran on to it (Continue, then setBreakpoints []
                # before the hit was read): the user no longer asked for this stop. (A breakpoint made
                # in gdb's own console is not ours and stops as gdb says.)
                self._gdb_resume("-exec-continue")
                return
            if bp is not None and bp.parfor_only and PARFOR_GUFUNC not in str(frame.get("func", "")):
                self._gdb_resume("-exec-continue")  # other code compiled from a string, same line number
                return
            if bp is not None and bp.path and jitframes.ARRAY_EXPR_KERNEL in str(frame.get("func", "")):
                # A generated kernel whose debug info claims a line of the user's file: not that line.
                self._gdb_resume("-exec-continue")
                return
            if bp is not None and bp.hit_mode == "%":
                bp.hits += 1
                if bp.hits % bp.hit_n:
                    self._gdb_resume("-exec-continue")
                    return
            if bp is not None and bp.hit_mode == "==":
                # Once: gdb's ignore count made this the N-th hit; never stop here again.
                try:
                    self.gdb.execute(f"-break-after {bp.number} 2147483647")
                except GdbCommandError as exc:
                    self.log(f"-break-after {bp.number}: {exc.message}")
            if bp is not None and bp.log_message is not None:
                self.output(self._format_log_message(bp.log_message, gdb_thread) + "\n", "console")
                self._gdb_resume("-exec-continue")
                return
            if bp is not None and bp.temporary:
                with self._lock:
                    self.gdb_bps.pop(bp.number, None)
            if bp is not None and bp.function == "step-in":
                body["reason"] = "step"
            else:
                body["reason"] = "function breakpoint" if bp is not None and bp.function else "breakpoint"
                if bp is not None:
                    body["hitBreakpointIds"] = [bp.dap_id]
        elif reason in ("end-stepping-range", "function-finished", "location-reached", "no-history"):
            if reason == "no-history":
                body["description"] = "Reached the start of the recording (reverse debugging)"
            elif (
                jitframes.classify_frame(frame) != "jit"
                and self.debugpy is not None
                and not self._reverse_pending
            ):
                # Left the outermost jitted frame: let debugpy stop in the Python caller.
                if self._arm_python_caller_stop(gdb_thread):
                    self._step_to_python_pending = True
                    self._gdb_resume("-exec-continue")
                    return
            body["reason"] = "step"
        elif reason == "signal-received":
            signal_name = str(payload.get("signal-name", ""))
            if signal_name in ("SIGINT", "SIGTRAP") and self._pause_via_gdb:
                body["reason"] = "pause"
            elif signal_name == "SIGINT":
                body["reason"] = "pause"
            else:
                body["reason"] = "exception"
                where = f"{frame.get('file', '?')}:{frame.get('line', '?')}" if frame.get("line") else "?"
                meaning = payload.get("signal-meaning", "")
                body["description"] = f"{signal_name} ({meaning}) at {where}"
                body["text"] = signal_name
                self._last_signal = {"exceptionId": signal_name, "description": body["description"]}
        else:
            body["reason"] = "pause" if self._pause_via_gdb else "step"
        self._pause_via_gdb = False
        self._reverse_pending = False
        if self._attach_continue:
            return  # the stop that attaching causes: the session continues it
        self._update_recording(frame)
        self.stream.event("stopped", body)

    def _update_recording(self, frame: dict[str, Any]) -> None:
        """With "reverse": true, gdb records (record full) only while the program stops in jitted code:
        recording starts at a jitted stop and ends at the first stop outside jitted code."""
        if not self.record_reverse or self.gdb is None:
            return
        in_jit = jitframes.classify_frame(frame) == "jit"
        try:
            if in_jit and not self._recording:
                # Only the stopped thread runs while recording (scheduler locking): recording every
                # thread (debugpy's included) would be far slower, and gdb's multi-threaded replay is fragile.
                self.gdb.execute_console("set scheduler-locking on")
                # libstdc++'s xmethods (loaded with libstdc++, so disabled here, not at start) fail on
                # Numba's anonymous structs and break reverse steps; jitted code has no C++ methods.
                self.gdb.execute_console("disable xmethod")
                self.gdb.execute_console("record full")
                self._recording = True
            elif not in_jit and self._recording:
                self.gdb.execute_console("record stop")
                self.gdb.execute_console("set scheduler-locking replay")
                self._recording = False
        except GdbCommandError as exc:
            self.log(f"record: {exc.message}")
            self.output(f"Reverse debugging is unavailable here: gdb says {exc.message}\n", "important")

    def _format_log_message(self, template: str, gdb_thread: str) -> str:
        assert self.gdb is not None

        def value(match: re.Match[str]) -> str:
            expression = match.group(1)
            try:
                result = self.gdb.execute(  # type: ignore[union-attr]
                    f"-data-evaluate-expression --thread {gdb_thread} --frame 0 {c_string(expression)}"
                )
                return str(result.get("value", "unavailable"))
            except GdbCommandError:
                return "unavailable"

        return re.sub(r"\{([^{}]+)\}", value, template)

    def _arm_python_caller_stop(self, gdb_thread: str) -> bool:
        """Through gdb, with the GIL held by this thread, ask debugpy to stop at the next line of the
        Python frame that called the jitted code (pyserver/debug/debuggee_boot.py)."""
        assert self.gdb is not None
        prefix = f"--thread {gdb_thread} --frame 0"
        try:
            holds_gil = self.gdb.execute(f"-data-evaluate-expression {prefix} (int)PyGILState_Check()")
            if str(holds_gil.get("value")) != "1":
                return False
            code = f"exec({STOP_IN_PYTHON_CALLER!r}, {{}})"
            result = self.gdb.execute(
                f"-data-evaluate-expression {prefix} {c_string(f'(int)PyRun_SimpleString({json.dumps(code)})')}",
                timeout=GDB_TIMEOUT_S,
            )
            return str(result.get("value")) == "0"
        except GdbCommandError as exc:
            self.log(f"could not hand the step to debugpy: {exc.message}")
            return False

    def _gdb_resume(self, command: str, gdb_thread: str | None = None) -> None:
        assert self.gdb is not None
        self._sync_debugpy_backlog(gdb_thread)
        self._resumed()
        try:
            self.gdb.execute(command, timeout=GDB_TIMEOUT_S)
        except GdbCommandError as exc:
            self.log(f"{command}: {exc.message}")

    def _sync_debugpy_backlog(self, gdb_thread: str | None) -> None:
        """Requests queued for debugpy while gdb held the process (a Python breakpoint set while stopped in
        jitted code) must reach debugpy before the program runs on, or the line may be passed first.
        Through gdb, the stopped thread (holding the GIL) sleeps in Python until the adapter has all the
        answers: every thread runs meanwhile, so debugpy's reader thread gets the GIL and applies them."""
        with self._lock:
            backlog = [reply for reply in self._debugpy_backlog if not reply.done]
            self._debugpy_backlog = []
        if not backlog or self.gdb is None or self.debugpy is None:
            return
        if self._recording:
            # gdb would record the call into the interpreter (and fail on its AVX code), and scheduler
            # locking keeps debugpy's threads from running during it: debugpy applies them as soon as
            # the program releases the GIL.
            self.log("recording: debugpy's pending requests are not awaited in the program")
            return
        gdb_thread = gdb_thread or self.gdb_threads.get(self.stopped_thread or 0) or "1"
        if self._sync_dir is None:
            self._sync_dir = tempfile.mkdtemp(prefix="numba-lens-sync-")
        flag = os.path.join(self._sync_dir, f"sync-{self.new_id()}")

        def release() -> None:
            for reply in backlog:
                reply.wait(SYNC_TIMEOUT_S)
            Path(flag).touch()

        threading.Thread(target=release, name="debugpy-sync", daemon=True).start()
        code = f"exec({WAIT_FOR_FILE.format(path=flag, timeout=SYNC_TIMEOUT_S)!r}, {{}})"
        prefix = f"--thread {gdb_thread} --frame 0"
        try:
            holds_gil = self.gdb.execute(f"-data-evaluate-expression {prefix} (int)PyGILState_Check()")
            if str(holds_gil.get("value")) == "1":
                self.gdb.execute(
                    f"-data-evaluate-expression {prefix} {c_string(f'(int)PyRun_SimpleString({json.dumps(code)})')}",
                    timeout=SYNC_TIMEOUT_S + GDB_TIMEOUT_S,
                )
        except GdbCommandError as exc:
            self.log(f"could not sync debugpy before resuming: {exc.message}")

    def _native_of_gdb_thread(self, gdb_thread: str) -> int:
        assert self.gdb is not None
        for native, gid in self.gdb_threads.items():
            if gid == gdb_thread:
                return native
        self._refresh_gdb_threads()
        for native, gid in self.gdb_threads.items():
            if gid == gdb_thread:
                return native
        return int(gdb_thread)

    def _refresh_gdb_threads(self) -> list[dict[str, Any]]:
        assert self.gdb is not None
        try:
            threads = self.gdb.execute("-thread-info").get("threads", [])
        except GdbCommandError as exc:
            # -thread-info reads every thread's registers, and one refusal fails it all. While recording
            # (scheduler locking on), gdb 13's record full lets the other threads run on after a Continue,
            # so their registers cannot be read: list the threads gdb knows without touching registers.
            self.log(f"-thread-info: {exc.message}; listing threads by gdb's Python API")
            threads = self._gdb_threads_without_registers()
        mapping: dict[int, str] = {}
        for thread in threads:
            match = re.search(r"LWP (\d+)", str(thread.get("target-id", "")))
            if match:
                mapping[int(match.group(1))] = str(thread["id"])
        with self._lock:
            self.gdb_threads = mapping
        return list(threads)

    def _gdb_threads_without_registers(self) -> list[dict[str, Any]]:
        """gdb's threads as -thread-info shapes them (id, target-id with the LWP, name), read from gdb's
        thread list (gdb.Inferior.threads()), which needs no thread to be held."""
        assert self.gdb is not None
        text = self.gdb.execute_console(
            "python print(__import__('json').dumps([{'id': str(t.num), 'target-id': f'LWP {t.ptid[1]}', "
            "'name': t.name or ''} for t in gdb.selected_inferior().threads() if t.is_valid()]))"
        )
        try:
            threads = json.loads(text.strip().splitlines()[-1])
        except (ValueError, IndexError) as exc:
            raise GdbCommandError("threads", f"gdb listed no threads: {exc}") from None
        return sorted(threads, key=lambda t: int(t["id"]))

    # --- debugpy events ------------------------------------------------------------------------------
    def _on_debugpy_event(self, message: Message) -> None:
        event = message.get("event")
        body = dict(message.get("body") or {})
        if event == "stopped":
            self._debugpy_step_thread = None
            stop = self._first_statement_stop
            hit = [int(i) for i in body.get("hitBreakpointIds") or []]
            if stop is not None and any(self._our_bp_id(i) == stop.dap_id for i in hit):
                # One-shot: its condition is false from now on in the program; sending the file's
                # breakpoints again to remove it would leave a moment without the editor's own ones,
                # which another kernel thread could run through. It is left out of later requests.
                stop.active = False
                body["reason"] = "function breakpoint"
                what = "kernel" if self.mode == "cudasim" else "function"
                body["description"] = f"Paused at the first line of {what} {stop.name} (stopAtJitFunction)"
                rest = [i for i in hit if self._our_bp_id(i) != stop.dap_id]
                if rest:
                    body["hitBreakpointIds"] = rest
                else:
                    body.pop("hitBreakpointIds", None)
            if self._drop_debugpy_pause and body.get("reason") == "pause":
                self._drop_debugpy_pause = False
                self.debugpy.request("continue", {"threadId": body.get("threadId")})  # type: ignore[union-attr]
                return
            theirs = int(body.get("threadId", 0))
            native = self._native_of_debugpy_thread(theirs)
            with self._lock:
                self.owner = "debugpy"
                self.stopped_thread = native
                self.frames.clear()
                self.var_refs.clear()
            self._delete_step_in_temps()
            body["threadId"] = native
            if self._step_to_python_pending or (
                body.get("reason") == "breakpoint" and not body.get("hitBreakpointIds")
            ):
                body["reason"] = "step" if self._step_to_python_pending else body["reason"]
            self._step_to_python_pending = False
            if "hitBreakpointIds" in body:
                body["hitBreakpointIds"] = [self._our_bp_id(i) for i in body["hitBreakpointIds"]]
            self.stream.event("stopped", body)
        elif event == "continued":
            if self.owner == "debugpy":
                self._resumed()
            body["threadId"] = self._native_of_debugpy_thread(int(body.get("threadId", 0)))
            self.stream.event("continued", body)
        elif event == "output":
            # With redirectOutput off the program's own output comes through the pty; what debugpy
            # sends as stdout is its log points.
            if body.get("category") == "telemetry":
                return
            self.stream.event("output", body)
        elif event == "breakpoint":
            bp = dict(body.get("breakpoint") or {})
            if "id" in bp:
                bp["id"] = self._our_bp_id(int(bp["id"]))
                self.stream.event("breakpoint", {"reason": body.get("reason", "changed"), "breakpoint": bp})
        elif event == "thread":
            if self.mode != "mixed":
                self.stream.event("thread", body)
        elif event in ("exited", "terminated", "_disconnected"):
            if self.gdb is None and event in ("terminated", "_disconnected") and self.process is None:
                self._program_exited(None)  # attach: the debuggee is not ours

    def _our_bp_id(self, theirs: int) -> int:
        with self._lock:
            if theirs in self._debugpy_function_ids:
                return self._debugpy_function_ids[theirs]
            for state in self.sources.values():
                if theirs in state.debugpy_ids:
                    return state.debugpy_ids[theirs]
        return theirs

    def _native_of_debugpy_thread(self, theirs: int) -> int:
        if self.mode != "mixed":
            return theirs
        with self._lock:
            if theirs in self.debugpy_threads:
                return self.debugpy_threads[theirs]
        native = self._ask_native_thread_id(theirs)
        if native is not None:
            with self._lock:
                self.debugpy_threads[theirs] = native
                self.native_to_debugpy[native] = theirs
            return native
        return theirs

    def _ask_native_thread_id(self, theirs: int) -> int | None:
        """debugpy knows its threads by its own ids; ask the stopped thread for its native id."""
        if self.debugpy is None:
            return None
        threads = self.debugpy.request("threads").wait(DEBUGPY_REPLY_TIMEOUT_S)
        for thread in ((threads or {}).get("body") or {}).get("threads", []):
            if int(thread.get("id", -1)) == theirs:
                self.thread_names[theirs] = str(thread.get("name", ""))
                if thread.get("name") == "MainThread" and self.inferior_pid:
                    return self.inferior_pid
        stack = self.debugpy.request("stackTrace", {"threadId": theirs, "levels": 1}).wait(
            DEBUGPY_REPLY_TIMEOUT_S
        )
        frames = ((stack or {}).get("body") or {}).get("stackFrames") or []
        if not frames:
            return None
        result = self.debugpy.request(
            "evaluate",
            {
                "expression": "__import__('threading').get_native_id()",
                "frameId": frames[0]["id"],
                "context": "repl",
            },
        ).wait(DEBUGPY_REPLY_TIMEOUT_S)
        try:
            return int(((result or {}).get("body") or {}).get("result", ""))
        except ValueError:
            return None

    # --- threads and stacks --------------------------------------------------------------------------
    def on_threads(self, args: dict[str, Any]) -> dict[str, Any]:
        if (self.gdb is None and self.debugpy is None) or self.ended.is_set():
            return {"threads": []}
        if self.mode != "mixed" or self.gdb is None:
            return self._forward("threads", {})
        threads = self._refresh_gdb_threads()
        names_by_native = {
            native: self.thread_names.get(theirs, "") for theirs, native in self.debugpy_threads.items()
        }
        result = []
        for thread in threads:
            match = re.search(r"LWP (\d+)", str(thread.get("target-id", "")))
            if not match:
                continue
            native = int(match.group(1))
            if (
                thread.get("name") == DEBUGGER_THREAD_NAME
                and not self.show_internal
                and native != self.stopped_thread
            ):
                continue  # debugpy's own threads (named by debuggee_boot.py): hidden, as debugpy hides them
            name = names_by_native.get(native) or ("MainThread" if native == self.inferior_pid else "")
            name = name or self._worker_name(native, str(thread.get("id")))
            label = name or str(thread.get("name") or "thread")
            result.append({"id": native, "name": f"{label} ({native})"})
        return {"threads": result}

    def _worker_name(self, native: int, gdb_thread: str) -> str:
        """ "numba worker N" for a thread of Numba's threading layer (workqueue, OpenMP or TBB), found by
        its stack; cached, as a thread's start routine never changes."""
        if native in self.worker_names:
            return self.worker_names[native]
        assert self.gdb is not None
        try:
            stack = self.gdb.execute(f"-stack-list-frames --thread {gdb_thread}").get("stack", [])
        except GdbCommandError:
            return ""
        text = " ".join(f"{f.get('func', '')} {f.get('from', '')} {f.get('file', '')}" for f in stack)
        if re.search(r"libgomp|gomp_thread|workqueue|thread_worker|libtbb|tbbpool|" + PARFOR_GUFUNC, text):
            kind = "numba worker"
        elif "blas_thread_server" in text:
            kind = "BLAS worker"  # OpenBLAS's own pool (numpy), not Numba's
        else:
            return ""
        name = f"{kind} {sum(1 for n in self.worker_names.values() if n.startswith(kind)) + 1}"
        self.worker_names[native] = name
        return name

    def _forward(self, command: str, args: dict[str, Any]) -> dict[str, Any]:
        if self.debugpy is None:
            raise DapError("The program is not running.")
        response = self.debugpy.request(command, args).wait(DEBUGPY_REPLY_TIMEOUT_S)
        if response is None:
            raise DapError(f"debugpy did not answer '{command}' in time.")
        if not response.get("success"):
            raise DapError(str(response.get("message") or f"debugpy: {command} failed"), show_user=False)
        return dict(response.get("body") or {})

    def _debugpy_thread(self, native: int) -> int:
        if self.mode != "mixed":
            return native
        with self._lock:
            return self.native_to_debugpy.get(native, native)

    def on_stack_trace(self, args: dict[str, Any]) -> dict[str, Any]:
        thread_id = int(args.get("threadId", 0))
        start = int(args.get("startFrame") or 0)
        levels = int(args.get("levels") or 0)
        if self.owner == "gdb" and self.gdb is not None:
            frames = self._gdb_stack(thread_id)
        elif self.debugpy is not None:
            body = self._forward(
                "stackTrace",
                {**args, "threadId": self._debugpy_thread(thread_id), "startFrame": 0, "levels": 0},
            )
            frames = []
            for frame in body.get("stackFrames", []):
                path = str((frame.get("source") or {}).get("path") or "")
                if not self.show_internal and path == str(BOOTSTRAP):
                    continue
                ref = FrameRef("debugpy", thread_id, debugpy_frame=int(frame["id"]))
                frame_id = self._remember_frame(ref)
                frames.append({**frame, "id": frame_id})
        else:
            raise DapError("The program is not stopped.")
        page = frames[start : start + levels] if levels else frames[start:]
        return {"stackFrames": page, "totalFrames": len(frames)}

    def _remember_frame(self, ref: FrameRef) -> int:
        frame_id = self.new_id()
        with self._lock:
            self.frames[frame_id] = ref
        return frame_id

    def _gdb_stack(self, thread_id: int) -> list[dict[str, Any]]:
        assert self.gdb is not None
        gdb_thread = self.gdb_threads.get(thread_id)
        if gdb_thread is None:
            self._refresh_gdb_threads()
            gdb_thread = self.gdb_threads.get(thread_id)
        if gdb_thread is None:
            raise DapError(f"Unknown thread {thread_id}.")
        try:
            raw = self.gdb.execute(f"-stack-list-frames --thread {gdb_thread}").get("stack", [])
        except GdbCommandError as exc:
            if not self._recording or "registers" not in exc.message:
                raise
            # gdb 13's record full let this thread run on (see _refresh_gdb_threads): it has no stack to show.
            ref = FrameRef("internal", thread_id, gdb_thread, 0)
            label = "Running: gdb records another thread and does not hold this one"
            return [
                {
                    "id": self._remember_frame(ref),
                    "name": label,
                    "line": 0,
                    "column": 0,
                    "presentationHint": "label",
                }
            ]
        frames: list[dict[str, Any]] = []
        for item in raw:
            kind = jitframes.classify_frame(item)
            level = int(item.get("level", 0))
            if kind == "jit":
                ref = FrameRef("jit", thread_id, gdb_thread, level, path=str(item.get("fullname", "")))
                ref.line = int(item.get("line", 0))
                name = jitframes.jit_frame_name(str(item.get("func", "?")))
                if PARFOR_GUFUNC in str(item.get("func", "")):
                    name, ref.path = self._parfor_frame(ref.path)
                frames.append(
                    {
                        "id": self._remember_frame(ref),
                        "name": name,
                        "source": {"path": ref.path, "name": os.path.basename(ref.path)},
                        "line": ref.line,
                        "column": 1,
                    }
                )
            elif self.show_internal:
                ref = FrameRef("internal", thread_id, gdb_thread, level)
                frame: dict[str, Any] = {
                    "id": self._remember_frame(ref),
                    "name": f"[{kind}] {item.get('func', '??')}",
                    "line": int(item.get("line", 0) or 0),
                    "column": 0,
                    "presentationHint": "subtle",
                }
                if jitframes.ARRAY_EXPR_KERNEL in str(item.get("func", "")):
                    # Its debug info names the user's file at the generated code's line 1 or 2: no source
                    # rather than a wrong line of the user's file.
                    frame["line"] = 0
                elif item.get("fullname"):
                    frame["source"] = {"path": item["fullname"], "presentationHint": "deemphasize"}
                frames.append(frame)
        frames.extend(self._gdb_python_frames(thread_id, gdb_thread))
        return frames

    def _parfor_frame(self, gdb_path: str) -> tuple[str, str]:
        """A prange body's gufunc: its debug info names the file "<string>" but keeps the user's line
        numbers. With one file holding prange breakpoints, that is the file; else the path stays unknown."""
        if os.path.basename(gdb_path) == "<string>" and len(self.parfor_sources) == 1:
            path, function = next(iter(self.parfor_sources.items()))
            return f"prange body of {function}", path
        return "prange body", gdb_path

    def _gdb_python_frames(self, thread_id: int, gdb_thread: str) -> list[dict[str, Any]]:
        """The Python frames of a thread held by gdb, read from CPython's structures (read-only)."""
        assert self.gdb is not None
        try:
            text = self.gdb.execute_console(f"numba-lens-pyframes {thread_id}")
            data = json.loads(text.strip().splitlines()[-1]) if text.strip() else {}
        except (GdbCommandError, ValueError) as exc:
            data = {"error": str(exc)}
        if "error" in data:
            self.log(f"Python frames unavailable: {data['error']}")
            return [
                {
                    "id": self._remember_frame(FrameRef("internal", thread_id, gdb_thread, 0)),
                    "name": "Python frames unavailable while gdb holds the program",
                    "line": 0,
                    "column": 0,
                    "presentationHint": "label",
                }
            ]
        frames = []
        for index, item in enumerate(data.get("frames", [])):
            path = str(item.get("file", ""))
            if not self.show_internal and any(marker in path for marker in INTERNAL_PY_FILES):
                continue
            ref = FrameRef(
                "gdb-python", thread_id, gdb_thread, index, path=path, line=int(item.get("line") or 0)
            )
            frame: dict[str, Any] = {
                "id": self._remember_frame(ref),
                "name": str(item.get("name", "?")),
                "line": ref.line,
                "column": 1,
            }
            if os.path.isfile(path):
                frame["source"] = {"path": path, "name": os.path.basename(path)}
            frames.append(frame)
        return frames

    def _gdb_python_locals(self, thread_id: int, index: int) -> list[dict[str, Any]]:
        """Locals of a Python frame below jitted code, read from memory by gdb: simple values (int,
        float, bool, str, None) as Python prints them, other objects by type only."""
        if self.gdb is None:
            return []
        try:
            text = self.gdb.execute_console(f"numba-lens-pylocals {thread_id} {index}")
            data = json.loads(text.strip().splitlines()[-1])
        except (GdbCommandError, ValueError, IndexError) as exc:
            data = {"error": str(exc)}
        if "error" in data:
            self.log(f"Python locals unavailable: {data['error']}")
            return []
        return [
            {**item, "variablesReference": 0, "presentationHint": {"attributes": ["readOnly"]}}
            for item in data.get("locals", [])
        ]

    # --- scopes, variables, evaluate -----------------------------------------------------------------
    def _frame(self, frame_id: int) -> FrameRef:
        with self._lock:
            ref = self.frames.get(frame_id)
        if ref is None:
            raise DapError("That frame is gone (the program has moved on).", show_user=False)
        return ref

    def _our_ref(self, kind: str, value: Any) -> int:
        ref = self.new_id()
        with self._lock:
            self.var_refs[ref] = (kind, value)
        return ref

    def _translate_debugpy_refs(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for item in items:
            item = dict(item)
            theirs = int(item.get("variablesReference") or 0)
            item["variablesReference"] = self._our_ref("debugpy", theirs) if theirs else 0
            out.append(item)
        return out

    def on_scopes(self, args: dict[str, Any]) -> dict[str, Any]:
        ref = self._frame(int(args.get("frameId", 0)))
        if ref.kind == "debugpy":
            body = self._forward("scopes", {"frameId": ref.debugpy_frame})
            return {"scopes": self._translate_debugpy_refs(body.get("scopes", []))}
        if ref.kind == "jit" and self.values is not None:
            scopes = []
            for scope in self.values.frame_scopes(ref.gdb_thread, ref.level):
                handle = scope.pop("_handle", None)
                scope["variablesReference"] = self._our_ref("jit", handle) if handle is not None else 0
                scopes.append(scope)
            return {"scopes": scopes}
        if ref.kind == "gdb-python":
            handle = (ref.thread_id, ref.level)
            return {
                "scopes": [
                    {
                        "name": "Locals (read-only)",
                        "presentationHint": "locals",
                        "expensive": False,
                        "variablesReference": self._our_ref("pylocals", handle),
                    }
                ]
            }
        return {"scopes": []}

    def on_variables(self, args: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            entry = self.var_refs.get(int(args.get("variablesReference", 0)))
        if entry is None:
            return {"variables": []}
        kind, value = entry
        if kind == "debugpy":
            body = self._forward("variables", {**args, "variablesReference": value})
            return {"variables": self._translate_debugpy_refs(body.get("variables", []))}
        if kind == "pylocals":
            return {"variables": self._gdb_python_locals(*value)}
        assert self.values is not None
        variables = []
        start = args.get("start")
        count = args.get("count")
        for variable in self.values.children(value, start, count):
            handle = variable.pop("_handle", None)
            variable["variablesReference"] = self._our_ref("jit", handle) if handle is not None else 0
            variables.append(variable)
        return {"variables": variables}

    def on_evaluate(self, args: dict[str, Any]) -> dict[str, Any]:
        expression = str(args.get("expression", ""))
        context = str(args.get("context") or "repl")
        frame_id = args.get("frameId")
        ref = self._frame(int(frame_id)) if frame_id is not None else None
        if (ref is not None and ref.kind == "debugpy") or (ref is None and self.owner != "gdb"):
            if self.debugpy is None:
                raise DapError("The program is not running.")
            forwarded = {**args}
            if ref is not None:
                forwarded["frameId"] = ref.debugpy_frame
            body = self._forward("evaluate", forwarded)
            theirs = int(body.get("variablesReference") or 0)
            body["variablesReference"] = self._our_ref("debugpy", theirs) if theirs else 0
            return body
        if ref is not None and ref.kind == "gdb-python":
            raise DapError(
                "Python frames are read-only while the program is stopped in jitted code; "
                "step out to Python to evaluate there."
            )
        if self.values is None or self.gdb is None:
            raise DapError("No gdb session.")
        gdb_thread = (
            ref.gdb_thread if ref is not None else self.gdb_threads.get(self.stopped_thread or 0, "1")
        )
        level = ref.level if ref is not None else 0
        if context == "repl" and expression.startswith("`"):
            return {"result": self.gdb.execute_console(expression[1:]).rstrip(), "variablesReference": 0}
        result = self.values.evaluate(gdb_thread, level, expression, context)
        handle = result.pop("_handle", None)
        result["variablesReference"] = self._our_ref("jit", handle) if handle is not None else 0
        return result

    def on_exception_info(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.owner == "gdb" and self._last_signal:
            return {**self._last_signal, "breakMode": "always"}
        if self.owner == "debugpy":
            return self._forward(
                "exceptionInfo", {"threadId": self._debugpy_thread(int(args.get("threadId", 0)))}
            )
        raise DapError("No exception information.")

    # --- execution control ---------------------------------------------------------------------------
    def _require_stopped(self) -> str:
        if self.owner is None:
            raise DapError("The program is running.", show_user=False)
        return self.owner

    def on_continue(self, args: dict[str, Any]) -> dict[str, Any]:
        owner = self._require_stopped()
        if owner == "gdb":
            self._forward_continue = self._recording
            self._cancel_debugpy_step()
            self._gdb_resume("-exec-continue")
        else:
            thread = self._debugpy_thread(int(args.get("threadId", 0)))
            self._resumed()
            assert self.debugpy is not None
            self.debugpy.request("continue", {"threadId": thread})
        return {"allThreadsContinued": True}

    def _step(self, args: dict[str, Any], gdb_command: str, debugpy_command: str) -> dict[str, Any]:
        owner = self._require_stopped()
        thread_id = int(args.get("threadId", 0))
        if owner == "gdb":
            gdb_thread = self.gdb_threads.get(thread_id, "1")
            stepper = self._stepper
            if (
                gdb_command in ("-exec-next", "-exec-step")
                and stepper
                and stepper.start(gdb_command, gdb_thread)
            ):
                return {}
            self._gdb_resume(f"{gdb_command} --thread {gdb_thread}")
            return {}
        assert self.debugpy is not None
        theirs = self._debugpy_thread(thread_id)
        self._debugpy_step_thread = theirs
        if debugpy_command == "stepIn" and self.gdb is not None:
            # A Python line may call a jitted function: stop at its first line if it does.
            self._arm_step_in_temps(theirs)
            self._resumed()
            self.debugpy.request("next", {"threadId": theirs})
            return {}
        self._resumed()
        self.debugpy.request(debugpy_command, {"threadId": theirs})
        return {}

    def _cancel_debugpy_step(self) -> None:
        """A Python step that ended in jitted code (a Step Into, or a breakpoint there) is still pending
        in debugpy: after a Continue it would stop at the next Python line once the jitted call returns.
        debugpy's continue clears it; it reaches debugpy before the program runs on (the backlog)."""
        thread, self._debugpy_step_thread = self._debugpy_step_thread, None
        if thread is None or self.debugpy is None:
            return
        reply = self.debugpy.request("continue", {"threadId": thread})
        with self._lock:
            self._debugpy_backlog.append(reply)

    def _arm_step_in_temps(self, debugpy_thread: int) -> None:
        assert self.gdb is not None and self.debugpy is not None
        stack = self.debugpy.request("stackTrace", {"threadId": debugpy_thread, "levels": 1}).wait(
            DEBUGPY_REPLY_TIMEOUT_S
        )
        frames = ((stack or {}).get("body") or {}).get("stackFrames") or []
        if not frames:
            return
        # The jitted functions this frame can call: every dispatcher in its globals and locals (imported
        # ones included), asked from debugpy, which answers since it owns the stop.
        reply = self.debugpy.request(
            "evaluate", {"expression": VISIBLE_DISPATCHERS, "frameId": frames[0]["id"], "context": "repl"}
        ).wait(DEBUGPY_REPLY_TIMEOUT_S)
        names: list[tuple[str, str]] = []
        try:
            found = ast.literal_eval(str(((reply or {}).get("body") or {}).get("result", "")))
            names = [(str(m), str(q)) for m, q in found if "<locals>" not in str(q)]
        except (ValueError, SyntaxError, TypeError) as exc:
            self.log(f"no dispatchers from debugpy ({exc!r}); using the frame's file")
            path = str((frames[0].get("source") or {}).get("path") or "")
            names = [("__main__", f.name) for f in self._jitted_functions(path)]
        temps = []
        for module, qualname in names[:200]:
            qualified = "::".join([*module.split("."), *qualname.split(".")])
            try:
                inserted = self.gdb.execute(f"-break-insert -t -f --qualified {qualified}")
                temps.append(str(inserted.get("bkpt", {}).get("number")))
            except GdbCommandError as exc:
                self.log(f"step-in breakpoint {qualified}: {exc.message}")
        with self._lock:
            self.step_in_temps = temps
            for number in temps:
                self.gdb_bps[number] = GdbBreakpoint(
                    self.new_id(), number, "", 0, None, "step-in", temporary=True
                )

    def _delete_step_in_temps(self) -> None:
        with self._lock:
            temps, self.step_in_temps = self.step_in_temps, []
        for number in temps:
            if self.gdb is not None:
                self._delete_gdb_breakpoint(number)

    def _reverse_step(self, args: dict[str, Any], gdb_command: str) -> dict[str, Any]:
        owner = self._require_stopped()
        if not self.record_reverse:
            raise DapError(
                'Stepping back needs "reverse": true in launch.json (gdb then records jitted code).'
            )
        if owner != "gdb" or not self._recording:
            raise DapError(
                "Stepping back works only inside jitted functions (gdb records them); "
                "this stop is in Python code, which is not recorded."
            )
        thread_id = int(args.get("threadId", 0))
        gdb_thread = self.gdb_threads.get(thread_id, "1")
        self._reverse_pending = True
        assert self.gdb is not None
        self._sync_debugpy_backlog(gdb_thread)
        self._resumed()
        try:
            self.gdb.execute(f"{gdb_command} --thread {gdb_thread} --reverse", timeout=GDB_TIMEOUT_S)
        except GdbCommandError as exc:
            # Nothing ran (typically: the recording starts here): still stopped where it was.
            self._reverse_pending = False
            with self._lock:
                self.owner = "gdb"
                self.stopped_thread = thread_id
            self.stream.event("stopped", {"threadId": thread_id, "allThreadsStopped": True, "reason": "step"})
            raise DapError(
                f"Cannot step back here (the recording starts at this stop?): {exc.message}"
            ) from None
        return {}

    def on_step_back(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._reverse_step(args, "-exec-next")

    def on_reverse_continue(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._reverse_step(args, "-exec-continue")

    def on_next(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._step(args, "-exec-next", "next")

    def on_step_in(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._step(args, "-exec-step", "stepIn")

    def on_step_out(self, args: dict[str, Any]) -> dict[str, Any]:
        owner = self._require_stopped()
        if owner == "gdb" and self.gdb is not None:
            thread_id = int(args.get("threadId", 0))
            gdb_thread = self.gdb_threads.get(thread_id, "1")
            raw = self.gdb.execute(f"-stack-list-frames --thread {gdb_thread} 0 1").get("stack", [])
            outermost = len(raw) < 2 or jitframes.classify_frame(raw[1]) != "jit"
            if outermost and self.debugpy is not None and self._arm_python_caller_stop(gdb_thread):
                self._step_to_python_pending = True
                self._gdb_resume("-exec-continue")
                return {}
        return self._step(args, "-exec-finish", "stepOut")

    def on_pause(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.owner is not None:
            return {}
        if self.debugpy is not None and self.debugpy.connected:
            stopped = threading.Event()

            def on_event(message: Message) -> None:
                if message.get("event") == "stopped":
                    stopped.set()

            self.debugpy.add_listener(on_event)
            try:
                self.debugpy.request("pause", {"threadId": "*"})
                if self.gdb is None or stopped.wait(1.0):
                    return {}
            finally:
                self.debugpy.remove_listener(on_event)
            # debugpy cannot answer: the thread is in native (jitted) code. Stop it with gdb, and drop
            # the pause debugpy will act on later.
            self._drop_debugpy_pause = True
        if self.gdb is not None:
            self._pause_via_gdb = True
            self.gdb.execute("-exec-interrupt --all")
        return {}

    # --- ending --------------------------------------------------------------------------------------
    def _program_exited(self, code: int | None) -> None:
        with self._lock:
            if self.ended.is_set():
                return
            self.ended.set()
            if code is not None:
                self._exit_code = code
        if self.pty is not None:
            self.pty.drained.wait(2.0)
        self.stream.event("exited", {"exitCode": code if code is not None else 0})
        self._send_terminated()
        threading.Thread(target=self.shutdown, name="session-shutdown", daemon=True).start()

    def _send_terminated(self) -> None:
        with self._lock:
            if self._terminated_sent:
                return
            self._terminated_sent = True
        self.stream.event("terminated")

    def on_terminate(self, args: dict[str, Any]) -> dict[str, Any]:
        self.shutdown()
        if not self.ended.is_set():
            self.ended.set()
            self.stream.event("exited", {"exitCode": self._exit_code if self._exit_code is not None else 137})
        self._send_terminated()
        return {}

    def on_disconnect(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.attached and not args.get("terminateDebuggee", False):
            self._detach()
        self.shutdown()
        if not self.ended.is_set():
            self.ended.set()
        self._send_terminated()
        return {}

    def _detach(self) -> None:
        """Leave an attached process running: gdb detaches, debugpy lets go of its threads."""
        attached_pid, self.inferior_pid = self.inferior_pid, None  # not ours to end
        self._detaching = True  # gdb reports the detached process as exited: it is not
        if self.gdb is not None and not self.gdb.exited.is_set():
            try:
                if self.owner == "gdb":
                    self._sync_debugpy_backlog(None)
                self.gdb.execute("-target-detach", timeout=GDB_TIMEOUT_S)
            except GdbCommandError as exc:
                self.log(f"detach from {attached_pid}: {exc.message}")
        if self.debugpy is not None and self.debugpy.connected:
            self.debugpy.request("disconnect", {"terminateDebuggee": False}).wait(5.0)

    _shutdown_lock = threading.Lock()

    def shutdown(self) -> None:
        """End gdb, debugpy's adapter and the debuggee; idempotent."""
        self._shutting_down = True
        if self.live_versions_dir is not None:
            shutil.rmtree(self.live_versions_dir, ignore_errors=True)
        with self._shutdown_lock:
            descendants = all_descendants(os.getpid())
            if self.debugpy is not None:
                self.debugpy.close()
            if self.gdb is not None:
                pid = self.inferior_pid
                if pid and not self.attached:
                    # debugpy's adapter daemonises out of the debuggee's tree: find it before the end.
                    descendants |= all_descendants(pid)
                self.gdb.close()
                if pid and self.attached:
                    # Attached and asked to terminate (a detach clears inferior_pid): end that process only.
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
            if self.process is not None:
                descendants |= all_descendants(self.process.pid)
                kill_group(self.process.pid)
                try:
                    self.process.kill()
                    self.process.wait(5)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            for pid in descendants:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            reap_children()
            if self.pty is not None:
                self.pty.close()
            if self._sync_dir is not None:
                shutil.rmtree(self._sync_dir, ignore_errors=True)
            if self.terminal is not None:
                self.terminal.close()


PARFOR_GUFUNC = "__numba_parfor_gufunc"


def prange_body_lines(path: str, functions: list[Any]) -> dict[int, str]:
    """1-based lines inside `for ... in prange(...)` bodies of parallel=True functions -> the function."""
    parallel = [f for f in functions if f.options.get("parallel")]
    if not parallel:
        return {}
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return {}
    lines: dict[int, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.For) or not isinstance(node.iter, ast.Call):
            continue
        callee = node.iter.func
        name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
        if name != "prange":
            continue
        owner = next((f for f in parallel if f.def_line <= node.lineno <= f.end_line), None)
        if owner is None or not node.body:
            continue
        for line in range(node.body[0].lineno, (node.end_lineno or node.lineno) + 1):
            lines[line] = owner.name
    return lines


def ptrace_hint(gdb_message: str) -> str | None:
    """What to do when gdb may not trace (ptrace refused), or None for other errors."""
    text = gdb_message.lower()
    if "ptrace" in text or "operation not permitted" in text or "could not trace" in text:
        return (
            "gdb may not trace processes here (ptrace: Operation not permitted). Allow it: "
            "echo 0 | sudo tee /proc/sys/kernel/yama/ptrace_scope, or in a container add "
            '--cap-add=SYS_PTRACE; "mode": "python" debugs without gdb.'
        )
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def process_is_dead(pid: int) -> bool:
    """Gone, or a zombie nobody has reaped yet (from /proc: psutil is a test-only dependency)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode(errors="replace")
        return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def all_descendants(pid: int) -> set[int]:
    """Every live descendant of `pid` (from /proc; no psutil at run time)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def reap_children() -> None:
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def wait_until(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()
