"""One debug session over two back ends: gdb (jitted frames) and debugpy (Python frames).

The session only coordinates: who owns the stop (gdb, debugpy or nobody), one thread list keyed by
native thread id, one call stack (jitted frames, then their Python callers), breakpoint routing by
source line, stepping across the boundary, and an ending that leaves no process behind.

Threads: the editor's requests are handled one at a time on a worker thread (which also starts gdb, so
gdb's parent-death signal stays armed for the session's life); gdb's async records arrive on the back
end's dispatcher thread and debugpy's events on the client's event thread. Shared state is guarded by
`self._lock`; nothing waits on debugpy while gdb holds the process.

The Session class is assembled from parts, one file each, whose functions take the session as `self`:
session_launch (launch, attach, the debuggee's environment), session_breakpoints (routing breakpoints
to gdb or debugpy), session_stops (gdb's and debugpy's events: what a stop is, resuming), and
session_threads (threads, stacks, scopes, variables, evaluate); session_common holds what they share.
This file keeps the main loop, execution control and the ending.
"""

from __future__ import annotations

import ast
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pyserver.debug import session_breakpoints as _breakpoints
from pyserver.debug import session_launch as _launch
from pyserver.debug import session_stops as _stops
from pyserver.debug import session_threads as _threads
from pyserver.debug.dap import DapError, DapStream, Message
from pyserver.debug.debuggee.snippets import STOP_AT_PYTHON_CALLER_LINE, VISIBLE_DISPATCHERS
from pyserver.debug.gdb.backend import GdbBackend, kill_group
from pyserver.debug.gdb.launcher import (
    InferiorPty,
)
from pyserver.debug.gdb.mi import breakpoint as mi_breakpoint
from pyserver.debug.gdb.mi import exec as mi_exec
from pyserver.debug.gdb.mi import stack as mi_stack
from pyserver.debug.gdb.mi import target as mi_target
from pyserver.debug.gdb.mi.exec import Resume, ResumeKind
from pyserver.debug.gdb.mi_protocol import GdbCommandError
from pyserver.debug.jit import frames as jitframes
from pyserver.debug.jit.entry_stop import FirstStatementStop
from pyserver.debug.jit.line_addresses import LoopHeaderBreakpoints
from pyserver.debug.jit.stepping import LineStepKind, LineStepper
from pyserver.debug.python.debugpy_client import DebugpyClient, Reply
from pyserver.debug.session_common import (
    DEBUGPY_CONNECT_TIMEOUT_S,
    DEBUGPY_REPLY_TIMEOUT_S,
    GDB_TIMEOUT_S,
    FrameRef,
    GdbBreakpoint,
    SourceBreakpoints,
    all_descendants,
    free_port,
    prange_body_lines,
    ptrace_hint,
    reap_children,
)
from pyserver.debug.stop_intent import IntentKind, StopIntent
from pyserver.debug.terminal import TerminalHolder, holder_command, wait_for_holder
from pyserver.debug.values import ValuesBridge

__all__ = ["Session", "free_port", "prange_body_lines", "ptrace_hint"]


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
        # What the next stops mean (set by the requests that resume, read by the stop handlers).
        self._intent = StopIntent()
        self._exit_code: int | None = None
        # debugpy requests made while gdb held the process, not answered yet.
        self._debugpy_backlog: list[Reply] = []
        self._sync_dir: str | None = None
        self._detaching = False
        self.stop_on_entry = False
        self._last_signal: dict[str, str] = {}
        self._first_statement_stop: FirstStatementStop | None = (
            None  # stopAtJitFunction in modes python and cudasim
        )
        self._debugpy_function_ids: dict[int, int] = {}  # debugpy's function breakpoint id -> ours
        self._loop_headers: LoopHeaderBreakpoints | None = None  # made at the first line breakpoint's hit
        self._reverse: dict[int, tuple[threading.Event, list[Message]]] = {}
        self._in_code_bp_number: str | None = None
        self._watching_debuggee = False
        self._shutting_down = False
        self._program_output_tail = ""
        self.record_reverse = False  # launch attribute "reverse"
        self._recording = False
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

    # --- launch (session_launch.py) ------------------------------------------------------------
    on_initialize = _launch.on_initialize
    on_launch = _launch.on_launch
    _launch_spec = _launch._launch_spec
    _locate_first_statement_stop = _launch._locate_first_statement_stop
    _debuggee_env = _launch._debuggee_env
    _check_numba = _launch._check_numba
    _launch_mixed = _launch._launch_mixed
    _configure_stepping = _launch._configure_stepping
    _insert_in_code_breakpoint = _launch._insert_in_code_breakpoint
    _launch_plain = _launch._launch_plain
    _program_tty = _launch._program_tty
    _watch_plain_process = _launch._watch_plain_process
    _start_debugpy = _launch._start_debugpy
    _wait_gdb_stopped_then_continue = _launch._wait_gdb_stopped_then_continue
    _gdb_inferior_pid = _launch._gdb_inferior_pid
    on_attach = _launch.on_attach
    _attach_to_process = _launch._attach_to_process
    on_configuration_done = _launch.on_configuration_done
    on_set_exception_breakpoints = _launch.on_set_exception_breakpoints

    # --- breakpoints (session_breakpoints.py) ------------------------------------------------------------
    _jitted_functions = _breakpoints._jitted_functions
    on_set_breakpoints = _breakpoints.on_set_breakpoints
    _parse_hit_condition = staticmethod(_breakpoints._parse_hit_condition)
    _ignore_count = staticmethod(_breakpoints._ignore_count)
    _insert_line_breakpoint = _breakpoints._insert_line_breakpoint
    _gdb_bp_to_dap = _breakpoints._gdb_bp_to_dap
    _delete_gdb_breakpoint = _breakpoints._delete_gdb_breakpoint
    _first_statement_stop_in = _breakpoints._first_statement_stop_in
    _set_python_breakpoints = _breakpoints._set_python_breakpoints
    _send_first_statement_stop = _breakpoints._send_first_statement_stop
    _debugpy_patience = _breakpoints._debugpy_patience
    on_set_function_breakpoints = _breakpoints.on_set_function_breakpoints
    _set_debugpy_function_breakpoints = _breakpoints._set_debugpy_function_breakpoints
    _insert_function_breakpoint = _breakpoints._insert_function_breakpoint

    # --- stops (session_stops.py) ------------------------------------------------------------
    _on_gdb_record = _stops._on_gdb_record
    _watch_debuggee = _stops._watch_debuggee
    _on_breakpoint_modified = _stops._on_breakpoint_modified
    _resumed = _stops._resumed
    _take_stop = _stops._take_stop
    _on_gdb_stopped = _stops._on_gdb_stopped
    _update_recording = _stops._update_recording
    _format_log_message = _stops._format_log_message
    _arm_python_caller_stop = _stops._arm_python_caller_stop
    _at_loop_header = _stops._at_loop_header
    _insert_loop_header_twins = _stops._insert_loop_header_twins
    _gdb_resume = _stops._gdb_resume
    _sync_debugpy_backlog = _stops._sync_debugpy_backlog
    _native_of_gdb_thread = _stops._native_of_gdb_thread
    _refresh_gdb_threads = _stops._refresh_gdb_threads
    _gdb_threads_without_registers = _stops._gdb_threads_without_registers
    _on_debugpy_event = _stops._on_debugpy_event
    _our_bp_id = _stops._our_bp_id
    _native_of_debugpy_thread = _stops._native_of_debugpy_thread
    _ask_native_thread_id = _stops._ask_native_thread_id

    # --- threads (session_threads.py) ------------------------------------------------------------
    on_threads = _threads.on_threads
    _worker_name = _threads._worker_name
    _forward = _threads._forward
    _debugpy_thread = _threads._debugpy_thread
    on_stack_trace = _threads.on_stack_trace
    _remember_frame = _threads._remember_frame
    _gdb_stack = _threads._gdb_stack
    _parfor_frame = _threads._parfor_frame
    _gdb_python_frames = _threads._gdb_python_frames
    _gdb_python_locals = _threads._gdb_python_locals
    _frame = _threads._frame
    _our_ref = _threads._our_ref
    _translate_debugpy_refs = _threads._translate_debugpy_refs
    on_scopes = _threads.on_scopes
    on_variables = _threads.on_variables
    on_evaluate = _threads.on_evaluate
    on_exception_info = _threads.on_exception_info

    # --- execution control ---------------------------------------------------------------------------
    def _update_intent(self, **changes: Any) -> StopIntent:
        """Change what the next stops mean (StopIntent's fields); returns the intent before the change."""
        with self._lock:
            before = self._intent
            self._intent = replace(before, **changes)
            return before

    def _require_stopped(self) -> str:
        if self.owner is None:
            raise DapError("The program is running.", show_user=False)
        return self.owner

    def on_continue(self, args: dict[str, Any]) -> dict[str, Any]:
        owner = self._require_stopped()
        if owner == "gdb":
            self._update_intent(kind=IntentKind.CONTINUE, live_after_replay=self._recording)
            self._cancel_debugpy_step()
            self._gdb_resume(Resume("continue"))
        else:
            self._update_intent(kind=IntentKind.CONTINUE, live_after_replay=False)
            thread = self._debugpy_thread(int(args.get("threadId", 0)))
            self._resumed()
            assert self.debugpy is not None
            self.debugpy.request("continue", {"threadId": thread})
        return {"allThreadsContinued": True}

    def _step(self, args: dict[str, Any], gdb_kind: ResumeKind, debugpy_command: str) -> dict[str, Any]:
        owner = self._require_stopped()
        thread_id = int(args.get("threadId", 0))
        self._update_intent(kind=IntentKind.STEP, live_after_replay=False)
        if owner == "gdb":
            gdb_thread = self.gdb_threads.get(thread_id, "1")
            stepper = self._stepper
            line_kind: LineStepKind | None = (
                "next" if gdb_kind == "next" else "step" if gdb_kind == "step" else None
            )
            if line_kind is not None and stepper and stepper.start(line_kind, gdb_thread):
                return {}
            self._gdb_resume(Resume(gdb_kind, gdb_thread))
            return {}
        assert self.debugpy is not None
        theirs = self._debugpy_thread(thread_id)
        self._update_intent(python_step_thread=theirs)
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
        thread = self._update_intent(python_step_thread=None).python_step_thread
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
                inserted = mi_breakpoint.break_insert(
                    self.gdb, qualified, temporary=True, allow_pending=True, qualified=True
                )
                temps.append(inserted.number)
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

    def _reverse_step(self, args: dict[str, Any], gdb_kind: ResumeKind) -> dict[str, Any]:
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
        self._update_intent(kind=IntentKind.REVERSE, live_after_replay=False)
        assert self.gdb is not None
        self._sync_debugpy_backlog(gdb_thread)
        self._resumed()
        try:
            mi_exec.resume(self.gdb, Resume(gdb_kind, gdb_thread, reverse=True), timeout=GDB_TIMEOUT_S)
        except GdbCommandError as exc:
            # Nothing ran (typically: the recording starts here): still stopped where it was.
            self._update_intent(kind=IntentKind.RUN)
            with self._lock:
                self.owner = "gdb"
                self.stopped_thread = thread_id
            self.stream.event("stopped", {"threadId": thread_id, "allThreadsStopped": True, "reason": "step"})
            raise DapError(
                f"Cannot step back here (the recording starts at this stop?): {exc.message}"
            ) from None
        return {}

    def on_step_back(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._reverse_step(args, "next")

    def on_reverse_continue(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._reverse_step(args, "continue")

    def on_next(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._step(args, "next", "next")

    def on_step_in(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._step(args, "step", "stepIn")

    def on_step_out(self, args: dict[str, Any]) -> dict[str, Any]:
        owner = self._require_stopped()
        if owner == "gdb" and self.gdb is not None:
            thread_id = int(args.get("threadId", 0))
            gdb_thread = self.gdb_threads.get(thread_id, "1")
            raw = mi_stack.stack_list_frames(self.gdb, gdb_thread, 0, 1)
            outermost = len(raw) < 2 or jitframes.classify_frame(raw[1]) != "jit"
            if (
                outermost
                and self.debugpy is not None
                and self._arm_python_caller_stop(gdb_thread, STOP_AT_PYTHON_CALLER_LINE)
            ):
                self._update_intent(kind=IntentKind.STEP, live_after_replay=False, python_caller=True)
                self._gdb_resume(Resume("continue"))
                return {}
        return self._step(args, "finish", "stepOut")

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
            self._update_intent(drop_debugpy_pause=True)
        if self.gdb is not None:
            self._update_intent(kind=IntentKind.PAUSE, live_after_replay=False)
            mi_exec.exec_interrupt(self.gdb, all_threads=True)
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
                mi_target.target_detach(self.gdb, timeout=GDB_TIMEOUT_S)
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
