"""gdb's async records, read on gdb's dispatcher thread: what each stop is (a breakpoint, a step, a
signal, the program's exit), which stops are absorbed (a loop header's other address, a log point, a hit
count not reached), and the recording that reverse steps replay."""

from __future__ import annotations

import json
import re
import signal
import threading
from typing import TYPE_CHECKING, Any

from pyserver.debug.debuggee.snippets import STOP_IN_PYTHON_CALLER
from pyserver.debug.gdb.backend import GdbBackend, MIRecord
from pyserver.debug.gdb.mi import data as mi_data
from pyserver.debug.gdb.mi import exec as mi_exec
from pyserver.debug.gdb.mi.exec import Resume
from pyserver.debug.gdb.mi_protocol import GdbCommandError, MIExecutor
from pyserver.debug.jit import frames as jitframes
from pyserver.debug.session.common import (
    GDB_TIMEOUT_S,
    NUMBA_OWN_SOURCE,
    PARFOR_GUFUNC,
    in_jitted_code,
    process_is_dead,
)
from pyserver.debug.session.stop import StopOwner
from pyserver.debug.stop_intent import IntentKind

if TYPE_CHECKING:
    from pyserver.debug.session.jit_side import JitSide
    from pyserver.debug.session.session import Session

# The reasons of gdb's stops that end a step.
STEP_ENDS = ("end-stepping-range", "function-finished", "location-reached", "no-history")


def holds_gil(gdb: MIExecutor, gdb_thread: str) -> bool:
    """Whether the thread (stopped by gdb) holds the GIL, so that it may run Python code."""
    return mi_data.data_evaluate_expression(gdb, "(int)PyGILState_Check()", thread=gdb_thread, frame=0) == "1"


def run_python_in_program(gdb: MIExecutor, gdb_thread: str, code: str, timeout: float) -> str:
    """PyRun_SimpleString(code) called by gdb in the stopped thread; its result ("0" when it ran)."""
    return mi_data.data_evaluate_expression(
        gdb, f"(int)PyRun_SimpleString({json.dumps(code)})", thread=gdb_thread, frame=0, timeout=timeout
    )


class GdbEvents:
    def __init__(self, session: Session, side: JitSide, gdb: GdbBackend) -> None:
        self._session = session
        self._side = side
        self._gdb = gdb

    def on_record(self, record: MIRecord) -> None:
        session = self._session
        debuggee = session.debuggee
        if record.message == "breakpoint-modified":
            self._side.breakpoints.on_modified(record.payload.get("bkpt", {}))
        elif record.message == "stopped":
            self.on_stopped(record.payload)
        elif record.message == "thread-group-exited" and not debuggee.detaching:
            code = record.payload.get("exit-code")
            if code:
                debuggee.exited(int(code, 8))
            else:
                # Killed by a signal: the *stopped "exited-signalled" that follows says which.
                timer = threading.Timer(2.0, debuggee.exited, args=(None,))
                timer.daemon = True
                timer.start()
        elif record.message == "thread-group-started":
            try:
                debuggee.learn_pid(int(record.payload.get("pid", 0)))
            except ValueError:
                pass
            debuggee.watch_once(self.watch_debuggee)
        elif record.message == "gdb-exited" and not debuggee.detaching:
            if not debuggee.ended.is_set() and debuggee.exit_code is None and not debuggee.shutting_down:
                session.client.output(
                    "gdb exited unexpectedly (it was killed or crashed): the debug session ends. "
                    "The program ended with it.\n",
                    "important",
                )
                debuggee.exited(128 + signal.SIGKILL)  # the debuggee dies with gdb (PR_SET_PDEATHSIG)

    def watch_debuggee(self) -> None:
        """gdb notices a debuggee killed while stopped only when it resumes it: watch the pid, and when it
        has died (a zombie gdb has not reaped yet), let gdb resume so that it reports the exit status."""
        session = self._session
        debuggee = session.debuggee
        pid = debuggee.pid
        while pid and not debuggee.ended.wait(0.5):
            dead = process_is_dead(pid)
            if not dead or debuggee.detaching or debuggee.shutting_down:
                continue
            if session.stop.held_by(StopOwner.JIT):
                session.client.log(
                    f"debuggee {pid} died while stopped: resuming gdb to collect its exit status"
                )
                try:
                    session.stop.resumed()
                    mi_exec.exec_continue(self._gdb, all_threads=True, timeout=10)
                except GdbCommandError as exc:
                    session.client.log(f"continue after the debuggee died: {exc.message}")
            if not debuggee.ended.wait(5.0):
                session.client.output(f"The program (pid {pid}) ended while it was stopped.\n", "important")
                debuggee.exited(-1)  # its exit status is unknown
            return

    def on_stopped(self, payload: dict[str, Any]) -> None:
        session, side, gdb = self._session, self._side, self._gdb
        stop = session.stop
        reason = str(payload.get("reason", ""))
        if reason == "exited-signalled":
            name = str(payload.get("signal-name", ""))
            number = getattr(signal, name, None) if name.startswith("SIG") else None
            session.client.output(
                f"The program was killed by {name} ({payload.get('signal-meaning', '')}).\n", "important"
            )
            session.debuggee.exited(128 + int(number) if number is not None else None)
            return
        if reason.startswith("exited"):
            code = payload.get("exit-code")
            session.debuggee.exited(int(code, 8) if code else 0)
            return
        gdb_thread = str(payload.get("thread-id") or "1")
        frame = payload.get("frame") or {}
        native = side.native_of_gdb_thread(gdb_thread)
        stop.take(StopOwner.JIT, native)
        bp = side.breakpoints.hit(str(payload.get("bkptno"))) if reason == "breakpoint-hit" else None
        side.breakpoints.delete_step_in_temps()
        # What this stop means to the session: read here, once; live_after_replay lasts one gdb stop.
        intent = stop.update_intent(live_after_replay=False)
        forward_continue = intent.kind is IntentKind.CONTINUE and intent.live_after_replay
        if forward_continue and reason in ("", "no-history"):
            # A Continue after reverse steps replays the recording up to its end and stops there ("No more
            # reverse-execution history"): the user asked to continue, so run on live (still recording).
            stop.update_intent(live_after_replay=True)
            side.resume_with(Resume("continue"))
            return
        if side.recording and reason == "signal-received" and str(payload.get("signal-name")) == "0":
            # gdb could not record an instruction (AVX code outside the jitted functions, e.g. glibc's
            # memcpy once a Continue left them): the recording ends here; a Continue runs on.
            self.update_recording({})
            if forward_continue:
                side.resume_with(Resume("continue"))
                return
            reason = "end-stepping-range"
        if side.stepper.active is not None:
            verdict = side.stepper.on_stop(reason, payload, gdb_thread, frame)
            if verdict == "absorbed":
                return
            if verdict == "step":
                reason = "end-stepping-range"
        body: dict[str, Any] = {"threadId": native, "allThreadsStopped": True}
        if reason == "breakpoint-hit" and side.breakpoints.is_in_code(str(payload.get("bkptno"))):
            # In Numba's helper: finish to the jitted caller; that stop is reported as the breakpoint.
            stop.update_intent(kind=IntentKind.FINISH_IN_CODE_BP)
            stop.resumed()
            mi_exec.exec_finish(gdb, gdb_thread, 0)
            return
        if intent.kind is IntentKind.FINISH_IN_CODE_BP:
            if NUMBA_OWN_SOURCE.search(str(frame.get("fullname") or frame.get("file") or "")):
                # numba.gdb()'s overload body (numba/misc/gdb_hook.py): one more level to the user's line.
                stop.resumed()
                mi_exec.exec_finish(gdb, gdb_thread, 0)
                return
            stop.update_intent(kind=IntentKind.RUN)
            self.update_recording(frame)
            session.client.event(
                "stopped", {**body, "reason": "breakpoint", "description": "numba.gdb_breakpoint()"}
            )
            return
        if reason == "breakpoint-hit":
            if bp is None and side.breakpoints.was_deleted(str(payload.get("bkptno"))):
                # A breakpoint deleted while the program ran on to it (Continue, then setBreakpoints []
                # before the hit was read): the user no longer asked for this stop. (A breakpoint made
                # in gdb's own console is not ours and stops as gdb says.)
                side.resume_with(Resume("continue"))
                return
            if (
                bp is not None
                and bp.path
                and not bp.hit_mode
                and not side.breakpoints.at_loop_header(bp, frame)
            ):
                side.resume_with(
                    Resume("continue")
                )  # not where the loop header's line runs (line_addresses.py)
                return
            if bp is not None and bp.parfor_only and PARFOR_GUFUNC not in str(frame.get("func", "")):
                side.resume_with(Resume("continue"))  # other code compiled from a string, same line number
                return
            if bp is not None and bp.path and jitframes.ARRAY_EXPR_KERNEL in str(frame.get("func", "")):
                # A generated kernel whose debug info claims a line of the user's file: not that line.
                side.resume_with(Resume("continue"))
                return
            if bp is not None and bp.hit_mode == "%" and not side.breakpoints.counted_hit_stops(bp):
                side.resume_with(Resume("continue"))
                return
            if bp is not None and bp.hit_mode == "==":
                side.breakpoints.never_again(bp)
            if bp is not None and bp.log_message is not None:
                session.client.output(self.format_log_message(bp.log_message, gdb_thread) + "\n", "console")
                side.resume_with(Resume("continue"))
                return
            if bp is not None and bp.temporary:
                side.breakpoints.forget(bp)
            if bp is not None and bp.step_in:
                body["reason"] = "step"
            else:
                body["reason"] = "function breakpoint" if bp is not None and bp.function else "breakpoint"
                if bp is not None:
                    body["hitBreakpointIds"] = [bp.dap_id]
        elif reason in STEP_ENDS:
            if reason == "no-history":
                body["description"] = "Reached the start of the recording (reverse debugging)"
            elif (
                not in_jitted_code(frame)
                and session.python.present
                and intent.kind is not IntentKind.REVERSE
                and self.arm_python_caller_stop(gdb_thread)
            ):
                # Left the outermost jitted frame: let debugpy stop in the Python caller.
                stop.update_intent(python_caller=True)
                side.resume_with(Resume("continue"))
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
                stop.stopped_by_signal({"exceptionId": signal_name, "description": body["description"]})
        else:
            body["reason"] = "pause" if intent.kind is IntentKind.PAUSE else "step"
        if intent.kind is IntentKind.ATTACH:
            return  # the stop that attaching causes: the session continues it
        stop.update_intent(kind=IntentKind.RUN)
        self.update_recording(frame)
        side.prefetch_stop(native, gdb_thread, frame)
        session.client.event("stopped", body)

    def update_recording(self, frame: dict[str, Any]) -> None:
        """With "reverse": true, gdb records (record full) only while the program stops in jitted code:
        recording starts at a jitted stop and ends at the first stop outside jitted code."""
        side, gdb = self._side, self._gdb
        if not side.records:
            return
        in_jit = in_jitted_code(frame)
        try:
            if in_jit and not side.recording:
                # Only the stopped thread runs while recording (scheduler locking): recording every
                # thread (debugpy's included) would be far slower, and gdb's multi-threaded replay is fragile.
                gdb.execute_console("set scheduler-locking on")
                # libstdc++'s xmethods (loaded with libstdc++, so disabled here, not at start) fail on
                # Numba's anonymous structs and break reverse steps; jitted code has no C++ methods.
                gdb.execute_console("disable xmethod")
                gdb.execute_console("record full")
                side.set_recording(True)
            elif not in_jit and side.recording:
                gdb.execute_console("record stop")
                gdb.execute_console("set scheduler-locking replay")
                side.set_recording(False)
        except GdbCommandError as exc:
            self._session.client.log(f"record: {exc.message}")
            self._session.client.output(
                f"Reverse debugging is unavailable here: gdb says {exc.message}\n", "important"
            )

    def format_log_message(self, template: str, gdb_thread: str) -> str:
        def value(match: re.Match[str]) -> str:
            try:
                return mi_data.data_evaluate_expression(self._gdb, match.group(1), thread=gdb_thread, frame=0)
            except GdbCommandError:
                return "unavailable"

        return re.sub(r"\{([^{}]+)\}", value, template)

    def arm_python_caller_stop(self, gdb_thread: str, program: str = STOP_IN_PYTHON_CALLER) -> bool:
        """Through gdb, with the GIL held by this thread, ask debugpy to stop at the next line of the
        Python frame that called the jitted code (pyserver/debug/debuggee/inside/boot.py)."""
        try:
            if not holds_gil(self._gdb, gdb_thread):
                return False
            code = f"exec({program!r}, {{}})"
            return run_python_in_program(self._gdb, gdb_thread, code, GDB_TIMEOUT_S) == "0"
        except GdbCommandError as exc:
            self._session.client.log(f"could not hand the step to debugpy: {exc.message}")
            return False
