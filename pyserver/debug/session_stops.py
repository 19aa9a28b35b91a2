"""Stops: gdb's and debugpy's events, what each stop is (breakpoint, step, signal, exit) and how the program resumes. A part of the Session class (session.py)."""

from __future__ import annotations

import json
import os
import re
import signal
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyserver.debug.dap import Message
from pyserver.debug.debuggee.snippets import STOP_IN_PYTHON_CALLER, WAIT_FOR_FILE
from pyserver.debug.gdb.backend import MIRecord
from pyserver.debug.gdb.mi import breakpoint as mi_breakpoint
from pyserver.debug.gdb.mi import data as mi_data
from pyserver.debug.gdb.mi import exec as mi_exec
from pyserver.debug.gdb.mi import thread as mi_thread
from pyserver.debug.gdb.mi.breakpoint import MIBreakpoint
from pyserver.debug.gdb.mi.exec import Resume
from pyserver.debug.gdb.mi.thread import MIThread
from pyserver.debug.gdb.mi_protocol import GdbCommandError, MIExecutor
from pyserver.debug.jit import frames as jitframes
from pyserver.debug.jit.line_addresses import LoopHeaderBreakpoints
from pyserver.debug.session_common import (
    DEBUGPY_REPLY_TIMEOUT_S,
    GDB_TIMEOUT_S,
    NUMBA_OWN_SOURCE,
    PARFOR_GUFUNC,
    SYNC_TIMEOUT_S,
    GdbBreakpoint,
    process_is_dead,
)
from pyserver.debug.stop_intent import IntentKind

if TYPE_CHECKING:
    from pyserver.debug.session import Session


# --- gdb events ----------------------------------------------------------------------------------
def _on_gdb_record(self: Session, record: MIRecord) -> None:
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


def _watch_debuggee(self: Session) -> None:
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
                mi_exec.exec_continue(self.gdb, all_threads=True, timeout=10)
            except GdbCommandError as exc:
                self.log(f"continue after the debuggee died: {exc.message}")
        if not self.ended.wait(5.0):
            self.output(f"The program (pid {pid}) ended while it was stopped.\n", "important")
            self._program_exited(-1)  # its exit status is unknown
        return


def _on_breakpoint_modified(self: Session, record: dict[str, Any]) -> None:
    with self._lock:
        bp = self.gdb_bps.get(str(record.get("number")))
    if bp is None:
        return
    was = bp.verified
    dap = self._gdb_bp_to_dap(bp, MIBreakpoint.from_mi(record))
    if bp.verified and not was:
        self.stream.event("breakpoint", {"reason": "changed", "breakpoint": dap})


def _resumed(self: Session) -> None:
    self._last_signal = {}
    self._take_stop(None, None)
    if self.values is not None:
        self.values.reset()


def _take_stop(self: Session, owner: str | None, thread: int | None) -> None:
    """Who holds the program now ("gdb", "debugpy", or None while it runs) and its stopped thread: the
    frames and variable references of any earlier stop are gone."""
    with self._lock:
        self.owner = owner
        self.stopped_thread = thread
        self.frames.clear()
        self.var_refs.clear()


def _on_gdb_stopped(self: Session, payload: dict[str, Any]) -> None:
    reason = str(payload.get("reason", ""))
    if reason == "exited-signalled":
        name = str(payload.get("signal-name", ""))
        number = getattr(signal, name, None) if name.startswith("SIG") else None
        self.output(f"The program was killed by {name} ({payload.get('signal-meaning', '')}).\n", "important")
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
    self._take_stop("gdb", native)
    if self.values is not None:
        self.values.reset()
    with self._lock:
        bp = self.gdb_bps.get(str(payload.get("bkptno"))) if reason == "breakpoint-hit" else None
    self._delete_step_in_temps()
    # What this stop means to the session: read here, once; live_after_replay lasts one gdb stop.
    intent = self._update_intent(live_after_replay=False)
    forward_continue = intent.kind is IntentKind.CONTINUE and intent.live_after_replay
    if forward_continue and reason in ("", "no-history"):
        # A Continue after reverse steps replays the recording up to its end and stops there ("No more
        # reverse-execution history"): the user asked to continue, so run on live (still recording).
        self._update_intent(live_after_replay=True)
        self._gdb_resume(Resume("continue"))
        return
    if self._recording and reason == "signal-received" and str(payload.get("signal-name")) == "0":
        # gdb could not record an instruction (AVX code outside the jitted functions, e.g. glibc's
        # memcpy once a Continue left them): the recording ends here; a Continue runs on.
        self._update_recording({})
        if forward_continue:
            self._gdb_resume(Resume("continue"))
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
        self._update_intent(kind=IntentKind.FINISH_IN_CODE_BP)
        self._resumed()
        mi_exec.exec_finish(self.gdb, gdb_thread, 0)
        return
    if intent.kind is IntentKind.FINISH_IN_CODE_BP:
        if NUMBA_OWN_SOURCE.search(str(frame.get("fullname") or frame.get("file") or "")):
            # numba.gdb()'s overload body (numba/misc/gdb_hook.py): one more level to the user's line.
            self._resumed()
            mi_exec.exec_finish(self.gdb, gdb_thread, 0)
            return
        self._update_intent(kind=IntentKind.RUN)
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
            self._gdb_resume(Resume("continue"))
            return
        if bp is not None and bp.path and not bp.hit_mode and not self._at_loop_header(bp, frame):
            self._gdb_resume(Resume("continue"))  # not where the loop header's line runs (line_addresses.py)
            return
        if bp is not None and bp.parfor_only and PARFOR_GUFUNC not in str(frame.get("func", "")):
            self._gdb_resume(Resume("continue"))  # other code compiled from a string, same line number
            return
        if bp is not None and bp.path and jitframes.ARRAY_EXPR_KERNEL in str(frame.get("func", "")):
            # A generated kernel whose debug info claims a line of the user's file: not that line.
            self._gdb_resume(Resume("continue"))
            return
        if bp is not None and bp.hit_mode == "%":
            bp.hits += 1
            if bp.hits % bp.hit_n:
                self._gdb_resume(Resume("continue"))
                return
        if bp is not None and bp.hit_mode == "==":
            # Once: gdb's ignore count made this the N-th hit; never stop here again.
            try:
                mi_breakpoint.break_after(self.gdb, bp.number, 2147483647)
            except GdbCommandError as exc:
                self.log(f"ignore breakpoint {bp.number} from now on: {exc.message}")
        if bp is not None and bp.log_message is not None:
            self.output(self._format_log_message(bp.log_message, gdb_thread) + "\n", "console")
            self._gdb_resume(Resume("continue"))
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
            and intent.kind is not IntentKind.REVERSE
        ):
            # Left the outermost jitted frame: let debugpy stop in the Python caller.
            if self._arm_python_caller_stop(gdb_thread):
                self._update_intent(python_caller=True)
                self._gdb_resume(Resume("continue"))
                return
        body["reason"] = "step"
    elif reason == "signal-received":
        signal_name = str(payload.get("signal-name", ""))
        if signal_name in ("SIGINT", "SIGTRAP") and intent.kind is IntentKind.PAUSE:
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
        body["reason"] = "pause" if intent.kind is IntentKind.PAUSE else "step"
    if intent.kind is IntentKind.ATTACH:
        return  # the stop that attaching causes: the session continues it
    self._update_intent(kind=IntentKind.RUN)
    self._update_recording(frame)
    self.stream.event("stopped", body)


def _update_recording(self: Session, frame: dict[str, Any]) -> None:
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


def _format_log_message(self: Session, template: str, gdb_thread: str) -> str:
    assert self.gdb is not None

    def value(match: re.Match[str]) -> str:
        expression = match.group(1)
        try:
            assert self.gdb is not None
            return mi_data.data_evaluate_expression(self.gdb, expression, thread=gdb_thread, frame=0)
        except GdbCommandError:
            return "unavailable"

    return re.sub(r"\{([^{}]+)\}", value, template)


def _arm_python_caller_stop(self: Session, gdb_thread: str, program: str = STOP_IN_PYTHON_CALLER) -> bool:
    """Through gdb, with the GIL held by this thread, ask debugpy to stop at the next line of the
    Python frame that called the jitted code (pyserver/debug/debuggee_boot.py)."""
    assert self.gdb is not None
    try:
        if not _holds_gil(self.gdb, gdb_thread):
            return False
        code = f"exec({program!r}, {{}})"
        return _run_python_in_program(self.gdb, gdb_thread, code, GDB_TIMEOUT_S) == "0"
    except GdbCommandError as exc:
        self.log(f"could not hand the step to debugpy: {exc.message}")
        return False


def _holds_gil(gdb: MIExecutor, gdb_thread: str) -> bool:
    """Whether the thread (stopped by gdb) holds the GIL, so that it may run Python code."""
    return mi_data.data_evaluate_expression(gdb, "(int)PyGILState_Check()", thread=gdb_thread, frame=0) == "1"


def _run_python_in_program(gdb: MIExecutor, gdb_thread: str, code: str, timeout: float) -> str:
    """PyRun_SimpleString(code) called by gdb in the stopped thread; its result ("0" when it ran)."""
    return mi_data.data_evaluate_expression(
        gdb, f"(int)PyRun_SimpleString({json.dumps(code)})", thread=gdb_thread, frame=0, timeout=timeout
    )


def _gdb_resume(self: Session, how: Resume, gdb_thread: str | None = None) -> None:
    assert self.gdb is not None
    self._sync_debugpy_backlog(gdb_thread)
    self._resumed()
    try:
        mi_exec.resume(self.gdb, how, timeout=GDB_TIMEOUT_S)
    except GdbCommandError as exc:
        self.log(f"{how}: {exc.message}")


def _sync_debugpy_backlog(self: Session, gdb_thread: str | None) -> None:
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
    try:
        if _holds_gil(self.gdb, gdb_thread):
            _run_python_in_program(self.gdb, gdb_thread, code, SYNC_TIMEOUT_S + GDB_TIMEOUT_S)
    except GdbCommandError as exc:
        self.log(f"could not sync debugpy before resuming: {exc.message}")


def _native_of_gdb_thread(self: Session, gdb_thread: str) -> int:
    assert self.gdb is not None
    for native, gid in self.gdb_threads.items():
        if gid == gdb_thread:
            return native
    # Only this thread first: listing every thread reads all their registers, which at the first stop
    # (Numba's and debugpy's thread pools) delays the stop by tens of milliseconds.
    try:
        single = mi_thread.thread_info(self.gdb, gdb_thread)
    except GdbCommandError:
        single = []
    for thread in single:
        match = re.search(r"LWP (\d+)", str(thread.get("target-id", "")))
        if match and str(thread.get("id")) == gdb_thread:
            native = int(match.group(1))
            with self._lock:  # a new dict, as _refresh_gdb_threads makes: readers iterate it unlocked
                self.gdb_threads = {**self.gdb_threads, native: gdb_thread}
            return native
    self._refresh_gdb_threads()
    for native, gid in self.gdb_threads.items():
        if gid == gdb_thread:
            return native
    return int(gdb_thread)


def _refresh_gdb_threads(self: Session) -> list[MIThread]:
    assert self.gdb is not None
    try:
        threads = mi_thread.thread_info(self.gdb)
    except GdbCommandError as exc:
        # -thread-info reads every thread's registers, and one refusal fails it all. While recording
        # (scheduler locking on), gdb 13's record full lets the other threads run on after a Continue,
        # so their registers cannot be read: list the threads gdb knows without touching registers.
        self.log(f"thread info: {exc.message}; listing threads by gdb's Python API")
        threads = self._gdb_threads_without_registers()
    mapping: dict[int, str] = {}
    for thread in threads:
        match = re.search(r"LWP (\d+)", str(thread.get("target-id", "")))
        if match:
            mapping[int(match.group(1))] = str(thread["id"])
    with self._lock:
        self.gdb_threads = mapping
    return list(threads)


def _gdb_threads_without_registers(self: Session) -> list[MIThread]:
    """gdb's threads as thread_info shapes them (id, target-id with the LWP, name), read from gdb's
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
    return sorted(threads, key=lambda t: int(t["id"]))  # type: ignore[no-any-return]


# --- debugpy events ------------------------------------------------------------------------------
def _on_debugpy_event(self: Session, message: Message) -> None:
    event = message.get("event")
    body = dict(message.get("body") or {})
    if event == "stopped":
        # What this stop means to the session: read here, once; any debugpy stop ends a Python step.
        intent = self._update_intent(python_step_thread=None)
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
        if intent.drop_debugpy_pause and body.get("reason") == "pause":
            self._update_intent(drop_debugpy_pause=False)
            self.debugpy.request("continue", {"threadId": body.get("threadId")})  # type: ignore[union-attr]
            return
        theirs = int(body.get("threadId", 0))
        native = self._native_of_debugpy_thread(theirs)
        self._take_stop("debugpy", native)
        self._delete_step_in_temps()
        body["threadId"] = native
        if intent.python_caller or (body.get("reason") == "breakpoint" and not body.get("hitBreakpointIds")):
            body["reason"] = "step" if intent.python_caller else body["reason"]
        if intent.python_caller:
            self._update_intent(python_caller=False)
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


def _our_bp_id(self: Session, theirs: int) -> int:
    with self._lock:
        if theirs in self._debugpy_function_ids:
            return self._debugpy_function_ids[theirs]
        for state in self.sources.values():
            if theirs in state.debugpy_ids:
                return state.debugpy_ids[theirs]
    return theirs


def _native_of_debugpy_thread(self: Session, theirs: int) -> int:
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


def _ask_native_thread_id(self: Session, theirs: int) -> int | None:
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


def _at_loop_header(self: Session, bp: GdbBreakpoint, frame: dict[str, Any]) -> bool:
    """Whether this hit of a line breakpoint is where its line runs for Python: on a loop header, gdb's
    address may not be (line_addresses.py); the addresses that are get breakpoints of their own."""
    from pyserver.debug.gdb.mi.console import console_output

    gdb = self.gdb
    assert gdb is not None
    if self._loop_headers is None:
        self._loop_headers = LoopHeaderBreakpoints(lambda cli: console_output(gdb, cli), self.log)
    report, extra = self._loop_headers.on_hit(bp.path, bp.line, int(str(frame.get("addr", "0")), 16))
    self._insert_loop_header_twins(bp, extra)
    return report


def _insert_loop_header_twins(self: Session, bp: GdbBreakpoint, addresses: list[int]) -> None:
    """Breakpoints at `addresses` that are `bp` for the editor (same DAP id, condition, log message), deleted
    with it when its source's breakpoints are set again."""
    gdb = self.gdb
    assert gdb is not None
    state = self.sources.get(bp.path)
    for address in addresses:
        try:
            inserted = mi_breakpoint.break_insert(gdb, f"*{address:#x}", condition=bp.condition)
        except GdbCommandError as exc:
            self.log(f"loop header breakpoint at {address:#x}: {exc.message}")
            continue
        twin = GdbBreakpoint(
            bp.dap_id, inserted.number, bp.path, bp.line, bp.log_message, condition=bp.condition
        )
        twin.verified = True
        with self._lock:
            self.gdb_bps[twin.number] = twin
        if state is not None:
            state.gdb.append(twin)
