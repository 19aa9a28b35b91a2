"""The jitted side: gdb. It lists the threads (by native id), shows a thread's stack (jitted frames, then
their Python callers read from memory), scopes, variables and evaluation in jitted frames, and runs the
program on from a stop it owns (continue, steps, reverse steps), syncing debugpy's pending requests first.
Without gdb the session has an AbsentJitSide."""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyserver.debug.dap import DapError
from pyserver.debug.debuggee.snippets import STOP_AT_PYTHON_CALLER_LINE, WAIT_FOR_FILE
from pyserver.debug.gdb.backend import GdbBackend
from pyserver.debug.gdb.mi import exec as mi_exec
from pyserver.debug.gdb.mi import stack as mi_stack
from pyserver.debug.gdb.mi import target as mi_target
from pyserver.debug.gdb.mi import thread as mi_thread
from pyserver.debug.gdb.mi.exec import Resume, ResumeKind
from pyserver.debug.gdb.mi.thread import MIThread
from pyserver.debug.gdb.mi_protocol import GdbCommandError
from pyserver.debug.jit import frames as jitframes
from pyserver.debug.jit.stepping import LineStepKind, LineStepper
from pyserver.debug.launch_spec import AttachSpec, LaunchSpec
from pyserver.debug.session.common import (
    DEBUGGER_THREAD_NAME,
    GDB_TIMEOUT_S,
    INTERNAL_PY_FILES,
    PARFOR_GUFUNC,
    SYNC_TIMEOUT_S,
    LineBreakpoint,
    SourceBreakpoints,
    all_descendants,
    in_jitted_code,
)
from pyserver.debug.session.debuggee import kill
from pyserver.debug.session.jit_breakpoints import GdbBreakpoints
from pyserver.debug.session.jit_events import GdbEvents, holds_gil, run_python_in_program
from pyserver.debug.session.jit_prefetch import StopPrefetch
from pyserver.debug.session.python_values import dap_variables
from pyserver.debug.session.side import AbsentSide, FrameKind, FrameRef, StepKind
from pyserver.debug.session.stop import StopOwner
from pyserver.debug.stop_intent import IntentKind
from pyserver.debug.values import ValuesBridge

if TYPE_CHECKING:
    from pyserver.debug.session.session import Session

# gdb's step for each of the editor's steps (a Step Out of an inner jitted frame is gdb's finish).
GDB_STEPS: dict[StepKind, ResumeKind] = {StepKind.OVER: "next", StepKind.INTO: "step", StepKind.OUT: "finish"}
LINE_STEPS: dict[StepKind, LineStepKind] = {StepKind.OVER: "next", StepKind.INTO: "step"}


@dataclass
class JitValue:
    """A variable reference to a value of a jitted frame (the values bridge's handle)."""

    side: JitSide
    handle: Any

    def variables(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            self.side.with_reference(v)
            for v in self.side.values.children(self.handle, args.get("start"), args.get("count"))
        ]


@dataclass
class PythonLocalsUnderGdb:
    """A variable reference to the locals of a Python frame read by gdb (read-only)."""

    side: JitSide
    thread_id: int
    gdb_thread: str
    index: int

    def variables(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        return self.side.python_locals(self.thread_id, self.gdb_thread, self.index)


class JitSide:
    present = True

    def __init__(self, session: Session, gdb: GdbBackend, spec: LaunchSpec | AttachSpec) -> None:
        self._session = session
        self._spec = spec
        self._lock = session.lock
        self.gdb = gdb
        self.stepper = LineStepper(gdb, self.resume_with, spec.just_my_code, session.client.log)
        self.breakpoints = GdbBreakpoints(session, gdb)
        self.events = GdbEvents(session, self, gdb)
        self._recording = False
        gdb.add_listener(self.events.on_record)
        self.values = ValuesBridge(
            gdb, session.client.log, live_versions=session.debuggee.existing_live_versions_file()
        )
        session.stop.on_move(self.values.reset)
        self.prefetch = StopPrefetch(session.client.log)
        session.stop.on_move(self.prefetch.forget)
        session.threads.use_native_ids()

    # --- recording (reverse debugging) -----------------------------------------------------------
    @property
    def records(self) -> bool:
        """ "reverse": true: gdb records jitted code for stepping back."""
        return self._spec.reverse

    @property
    def recording(self) -> bool:
        return self._recording

    def set_recording(self, on: bool) -> None:
        with self._lock:
            self._recording = on

    # --- threads ---------------------------------------------------------------------------------
    def threads(self) -> list[dict[str, Any]]:
        session = self._session
        threads = self.refresh_threads()
        names_by_native = session.threads.debugpy_names_by_native()
        result = []
        for thread in threads:
            match = re.search(r"LWP (\d+)", str(thread.get("target-id", "")))
            if not match:
                continue
            native = int(match.group(1))
            if (
                thread.get("name") == DEBUGGER_THREAD_NAME
                and not self._spec.show_internal
                and native != session.stop.thread
            ):
                continue  # debugpy's own threads (named by debuggee_boot.py): hidden, as debugpy hides them
            name = names_by_native.get(native) or ("MainThread" if native == session.debuggee.pid else "")
            name = name or self._worker_name(native, str(thread.get("id")))
            label = name or str(thread.get("name") or "thread")
            result.append({"id": native, "name": f"{label} ({native})"})
        return result

    def _worker_name(self, native: int, gdb_thread: str) -> str:
        """ "numba worker N" for a thread of Numba's threading layer (workqueue, OpenMP or TBB), found by
        its stack; cached, as a thread's start routine never changes."""
        registry = self._session.threads
        known = registry.worker_name(native)
        if known is not None:
            return known
        try:
            stack = mi_stack.stack_list_frames(self.gdb, gdb_thread)
        except GdbCommandError:
            return ""
        text = " ".join(f"{f.get('func', '')} {f.get('from', '')} {f.get('file', '')}" for f in stack)
        if re.search(r"libgomp|gomp_thread|workqueue|thread_worker|libtbb|tbbpool|" + PARFOR_GUFUNC, text):
            return registry.name_worker(native, "numba worker")
        if "blas_thread_server" in text:
            return registry.name_worker(native, "BLAS worker")  # OpenBLAS's own pool (numpy), not Numba's
        return ""

    def native_of_gdb_thread(self, gdb_thread: str) -> int:
        registry = self._session.threads
        known = registry.native_of_gdb(gdb_thread)
        if known is not None:
            return known
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
                registry.add_gdb_thread(native, gdb_thread)
                return native
        self.refresh_threads()
        known = registry.native_of_gdb(gdb_thread)
        return known if known is not None else int(gdb_thread)

    def refresh_threads(self) -> list[MIThread]:
        try:
            threads = mi_thread.thread_info(self.gdb)
        except GdbCommandError as exc:
            # -thread-info reads every thread's registers, and one refusal fails it all. While recording
            # (scheduler locking on), gdb 13's record full lets the other threads run on after a Continue,
            # so their registers cannot be read: list the threads gdb knows without touching registers.
            self._session.client.log(f"thread info: {exc.message}; listing threads by gdb's Python API")
            threads = self._threads_without_registers()
        mapping: dict[int, str] = {}
        for thread in threads:
            match = re.search(r"LWP (\d+)", str(thread.get("target-id", "")))
            if match:
                mapping[int(match.group(1))] = str(thread["id"])
        self._session.threads.set_gdb_threads(mapping)
        return list(threads)

    def _threads_without_registers(self) -> list[MIThread]:
        """gdb's threads as thread_info shapes them (id, target-id with the LWP, name), read from gdb's
        thread list (gdb.Inferior.threads()), which needs no thread to be held."""
        command = (
            "python print(__import__('json').dumps([{'id': str(t.num), 'target-id': f'LWP {t.ptid[1]}', "
            "'name': t.name or ''} for t in gdb.selected_inferior().threads() if t.is_valid()]))"
        )
        for _attempt in range(3):  # its printed line has been seen missing once under load: ask again
            lines = self.gdb.execute_console(command).strip().splitlines()
            try:
                return sorted(json.loads(lines[-1]), key=lambda t: int(t["id"]))  # type: ignore[no-any-return]
            except (ValueError, IndexError) as exc:
                self._session.client.log(f"thread list: unreadable answer {lines!r} ({exc}); asking again")
        raise GdbCommandError("threads", "gdb listed no threads")

    # --- stacks ----------------------------------------------------------------------------------
    def _frame_id(self, kind: FrameKind, thread_id: int, gdb_thread: str, level: int, **where: Any) -> int:
        return self._session.handles.frame_id(FrameRef(self, kind, thread_id, gdb_thread, level, **where))

    def stack(self, thread_id: int, args: dict[str, Any]) -> list[dict[str, Any]]:
        registry = self._session.threads
        gdb_thread = registry.gdb_thread(thread_id)
        if gdb_thread is None:
            self.refresh_threads()
            gdb_thread = registry.gdb_thread(thread_id)
        if gdb_thread is None:
            raise DapError(f"Unknown thread {thread_id}.")
        try:
            raw = self.prefetch.get(
                thread_id, "stack", lambda: mi_stack.stack_list_frames(self.gdb, gdb_thread)
            )
        except GdbCommandError as exc:
            if not self._recording or "registers" not in exc.message:
                raise
            # gdb 13's record full let this thread run on (see refresh_threads): it has no stack to show.
            label = "Running: gdb records another thread and does not hold this one"
            frame_id = self._frame_id(FrameKind.INTERNAL, thread_id, gdb_thread, 0)
            return [{"id": frame_id, "name": label, "line": 0, "column": 0, "presentationHint": "label"}]
        frames: list[dict[str, Any]] = []
        for item in raw:
            kind = jitframes.classify_frame(item)
            level = int(item.get("level", 0))
            if in_jitted_code(item):
                path, line = str(item.get("fullname", "")), int(item.get("line", 0))
                name = jitframes.jit_frame_name(str(item.get("func", "?")))
                if PARFOR_GUFUNC in str(item.get("func", "")):
                    name, path = self._session.breakpoints.parfor_frame(path)
                frame_id = self._frame_id(FrameKind.JIT, thread_id, gdb_thread, level, path=path, line=line)
                frames.append(
                    {
                        "id": frame_id,
                        "name": name,
                        "source": {"path": path, "name": os.path.basename(path)},
                        "line": line,
                        "column": 1,
                    }
                )
            elif self._spec.show_internal:
                frame: dict[str, Any] = {
                    "id": self._frame_id(FrameKind.INTERNAL, thread_id, gdb_thread, level),
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
        frames.extend(self._python_frames(thread_id, gdb_thread))
        return frames

    def prefetch_stop(self, thread_id: int, gdb_thread: str, frame: dict[str, Any]) -> None:
        """At a stop in jitted code, before the editor hears of it: start reading what it asks next."""
        if in_jitted_code(frame):
            self.prefetch.start(
                thread_id,
                {
                    "stack": lambda: mi_stack.stack_list_frames(self.gdb, gdb_thread),
                    "python": lambda: self.gdb.execute_console(f"numba-lens-pyframes {thread_id}"),
                },
                then=lambda: self.values.frame_scopes(gdb_thread, 0),
            )

    def _python_frames(self, thread_id: int, gdb_thread: str) -> list[dict[str, Any]]:
        """The Python frames of a thread held by gdb, read from CPython's structures (read-only)."""
        try:
            text = self.prefetch.get(
                thread_id, "python", lambda: self.gdb.execute_console(f"numba-lens-pyframes {thread_id}")
            )
            data = json.loads(text.strip().splitlines()[-1]) if text.strip() else {}
        except (GdbCommandError, ValueError) as exc:
            data = {"error": str(exc)}
        if "error" in data:
            self._session.client.log(f"Python frames unavailable: {data['error']}")
            return [
                {
                    "id": self._frame_id(FrameKind.INTERNAL, thread_id, gdb_thread, 0),
                    "name": "Python frames unavailable while gdb holds the program",
                    "line": 0,
                    "column": 0,
                    "presentationHint": "label",
                }
            ]
        frames = []
        for index, item in enumerate(data.get("frames", [])):
            path = str(item.get("file", ""))
            if not self._spec.show_internal and any(marker in path for marker in INTERNAL_PY_FILES):
                continue
            line = int(item.get("line") or 0)
            frame_id = self._frame_id(
                FrameKind.PYTHON_UNDER_GDB, thread_id, gdb_thread, index, path=path, line=line
            )
            frame: dict[str, Any] = {
                "id": frame_id,
                "name": str(item.get("name", "?")),
                "line": line,
                "column": 1,
            }
            if os.path.isfile(path):
                frame["source"] = {"path": path, "name": os.path.basename(path)}
            frames.append(frame)
        return frames

    def python_locals(self, thread_id: int, gdb_thread: str, index: int) -> list[dict[str, Any]]:
        """Locals of a Python frame below jitted code (a `<module>` frame: its globals), read from
        memory by gdb: repr() where memory gives it, items and fields as children (python_values.py)."""
        try:
            text = self.gdb.execute_console(f"numba-lens-pylocals {thread_id} {index}")
            data = json.loads(text.strip().splitlines()[-1])
        except (GdbCommandError, ValueError, IndexError) as exc:
            data = {"error": str(exc)}
        if "error" in data:
            self._session.client.log(f"Python locals unavailable: {data['error']}")
            return []

        def typed(name: str, found: dict[str, Any]) -> dict[str, Any]:
            return self.with_reference(
                self.values.typed_container(
                    gdb_thread, str(found.get("type", "")), int(found["address"]), name
                )
            )

        return dap_variables(self._session.handles, list(data.get("locals", [])), typed)

    # --- scopes, variables, evaluate -------------------------------------------------------------
    def with_reference(self, item: dict[str, Any]) -> dict[str, Any]:
        """A scope, variable or result of the values bridge, its handle made one of our references."""
        handle = item.pop("_handle", None)
        handles = self._session.handles
        item["variablesReference"] = (
            handles.variables_reference(JitValue(self, handle)) if handle is not None else 0
        )
        return item

    def scopes(self, frame: FrameRef) -> list[dict[str, Any]]:
        if frame.kind is FrameKind.JIT:
            return [
                self.with_reference(scope)
                for scope in self.values.frame_scopes(frame.gdb_thread, frame.level)
            ]
        if frame.kind is FrameKind.PYTHON_UNDER_GDB:
            source = PythonLocalsUnderGdb(self, frame.thread_id, frame.gdb_thread, frame.level)
            return [
                {
                    "name": "Locals (read-only)",
                    "presentationHint": "locals",
                    "expensive": False,
                    "variablesReference": self._session.handles.variables_reference(source),
                }
            ]
        return []

    def evaluate(self, args: dict[str, Any], frame: FrameRef | None) -> dict[str, Any]:
        if frame is not None and frame.kind is FrameKind.PYTHON_UNDER_GDB:
            raise DapError(
                "Python frames are read-only while the program is stopped in jitted code; "
                "step out to Python to evaluate there."
            )
        expression = str(args.get("expression", ""))
        context = str(args.get("context") or "repl")
        if frame is not None:
            gdb_thread, level = frame.gdb_thread, frame.level
        else:
            gdb_thread, level = self._session.threads.gdb_thread_or_first(self._session.stop.thread), 0
        if context == "repl" and expression.startswith("`"):
            return {"result": self.gdb.execute_console(expression[1:]).rstrip(), "variablesReference": 0}
        return self.with_reference(self.values.evaluate(gdb_thread, level, expression, context))

    def exception_info(self, thread_id: int) -> dict[str, Any]:
        signal = self._session.stop.signal
        if not signal:
            raise DapError("No exception information.")
        return {**signal, "breakMode": "always"}

    # --- running on ------------------------------------------------------------------------------
    def resume_with(self, how: Resume, gdb_thread: str | None = None) -> None:
        """Resume gdb as asked, after debugpy has what it was sent while gdb held the program."""
        self.sync_python_backlog(gdb_thread)
        self._session.stop.resumed()
        try:
            mi_exec.resume(self.gdb, how, timeout=GDB_TIMEOUT_S)
        except GdbCommandError as exc:
            self._session.client.log(f"{how}: {exc.message}")

    def resume(self, thread_id: int) -> None:
        self._session.stop.update_intent(kind=IntentKind.CONTINUE, live_after_replay=self._recording)
        self._session.python.cancel_step()
        self.resume_with(Resume("continue"))

    def step(self, thread_id: int, kind: StepKind) -> None:
        stop = self._session.stop
        gdb_thread = self._session.threads.gdb_thread_or_first(thread_id)
        if kind is StepKind.OUT and self._step_out_to_python(gdb_thread):
            stop.update_intent(kind=IntentKind.STEP, live_after_replay=False, python_caller=True)
            self.resume_with(Resume("continue"))
            return
        stop.update_intent(kind=IntentKind.STEP, live_after_replay=False)
        line_kind = LINE_STEPS.get(kind)
        if line_kind is not None and self.stepper.start(line_kind, gdb_thread):
            return
        self.resume_with(Resume(GDB_STEPS[kind], gdb_thread))

    def _step_out_to_python(self, gdb_thread: str) -> bool:
        """A Step Out of the outermost jitted frame: debugpy stops in its Python caller, if it can be armed."""
        raw = mi_stack.stack_list_frames(self.gdb, gdb_thread, 0, 1)
        outermost = len(raw) < 2 or not in_jitted_code(raw[1])
        return (
            outermost
            and self._session.python.present
            and self.events.arm_python_caller_stop(gdb_thread, STOP_AT_PYTHON_CALLER_LINE)
        )

    def reverse(self, thread_id: int, gdb_kind: ResumeKind) -> None:
        """Step back or reverse-continue: gdb replays its recording of jitted code."""
        session = self._session
        owner = session.stop.require_stopped()
        if not self.records:
            raise DapError(REVERSE_NEEDS_SETTING)
        if owner is not StopOwner.JIT or not self._recording:
            raise DapError(
                "Stepping back works only inside jitted functions (gdb records them); "
                "this stop is in Python code, which is not recorded."
            )
        gdb_thread = session.threads.gdb_thread_or_first(thread_id)
        session.stop.update_intent(kind=IntentKind.REVERSE, live_after_replay=False)
        self.sync_python_backlog(gdb_thread)
        session.stop.resumed()
        try:
            mi_exec.resume(self.gdb, Resume(gdb_kind, gdb_thread, reverse=True), timeout=GDB_TIMEOUT_S)
        except GdbCommandError as exc:
            # Nothing ran (typically: the recording starts here): still stopped where it was.
            session.stop.update_intent(kind=IntentKind.RUN)
            session.stop.take(StopOwner.JIT, thread_id)
            session.client.event(
                "stopped", {"threadId": thread_id, "allThreadsStopped": True, "reason": "step"}
            )
            raise DapError(
                f"Cannot step back here (the recording starts at this stop?): {exc.message}"
            ) from None

    def interrupt(self) -> None:
        """Pause: gdb stops every thread."""
        self._session.stop.update_intent(kind=IntentKind.PAUSE, live_after_replay=False)
        mi_exec.exec_interrupt(self.gdb, all_threads=True)

    def continue_after_attach(self) -> None:
        """gdb stopped every thread on attach: let them run, or debugpy cannot answer."""
        stop = self._session.stop
        deadline = time.monotonic() + GDB_TIMEOUT_S
        while not stop.held_by(StopOwner.JIT) and time.monotonic() < deadline:
            time.sleep(0.02)
        stop.update_intent(kind=IntentKind.CONTINUE)
        self.resume_with(Resume("continue"))

    def sync_python_backlog(self, gdb_thread: str | None) -> None:
        """Requests queued for debugpy while gdb held the process (a Python breakpoint set while stopped in
        jitted code) must reach debugpy before the program runs on, or the line may be passed first.
        Through gdb, the stopped thread (holding the GIL) sleeps in Python until the adapter has all the
        answers: every thread runs meanwhile, so debugpy's reader thread gets the GIL and applies them."""
        session = self._session
        backlog = session.python.take_backlog()
        if not backlog:
            return
        if self._recording:
            # gdb would record the call into the interpreter (and fail on its AVX code), and scheduler
            # locking keeps debugpy's threads from running during it: debugpy applies them as soon as
            # the program releases the GIL.
            session.client.log("recording: debugpy's pending requests are not awaited in the program")
            return
        gdb_thread = gdb_thread or session.threads.gdb_thread_or_first(session.stop.thread)
        flag = session.debuggee.sync_flag(f"sync-{session.handles.new_id()}")

        def release() -> None:
            for reply in backlog:
                reply.wait(SYNC_TIMEOUT_S)
            open(flag, "a").close()

        threading.Thread(target=release, name="debugpy-sync", daemon=True).start()
        code = f"exec({WAIT_FOR_FILE.format(path=flag, timeout=SYNC_TIMEOUT_S)!r}, {{}})"
        try:
            if holds_gil(self.gdb, gdb_thread):
                run_python_in_program(self.gdb, gdb_thread, code, SYNC_TIMEOUT_S + GDB_TIMEOUT_S)
        except GdbCommandError as exc:
            session.client.log(f"could not sync debugpy before resuming: {exc.message}")

    # --- breakpoints -----------------------------------------------------------------------------
    def set_function_breakpoints(self, bps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self.breakpoints.set_function_breakpoints(bps)

    def set_line_breakpoints(
        self, path: str, state: SourceBreakpoints, bps: list[LineBreakpoint]
    ) -> dict[int, dict[str, Any]]:
        """Replace the source's gdb breakpoints with these; the editor's answer for each, by its index."""
        self.breakpoints.clear_source(state)
        return {
            bp.index: self.breakpoints.insert_line(path, bp.args, state, gdb_file=bp.gdb_file) for bp in bps
        }

    def arm_step_in(self, qualified_names: list[str]) -> None:
        self.breakpoints.arm_step_in(qualified_names)

    def delete_step_in_temps(self) -> None:
        self.breakpoints.delete_step_in_temps()

    # --- the end ---------------------------------------------------------------------------------
    def detach(self, pid: int | None) -> None:
        """Leave an attached process running: gdb detaches (debugpy's pending requests first)."""
        if self.gdb.exited.is_set():
            return
        try:
            if self._session.stop.held_by(StopOwner.JIT):
                self.sync_python_backlog(None)
            mi_target.target_detach(self.gdb, timeout=GDB_TIMEOUT_S)
        except GdbCommandError as exc:
            self._session.client.log(f"detach from {pid}: {exc.message}")

    def inferior_pid(self) -> int | None:
        """The pid of the program gdb runs, asked from gdb."""
        try:
            groups = mi_thread.list_thread_groups(self.gdb)
            return int(groups[0]["pid"])
        except (GdbCommandError, KeyError, IndexError, ValueError):
            return None

    def alive(self) -> bool:
        return not self.gdb.exited.is_set() and self._session.debuggee.exit_code is None

    def close(self, descendants: set[int]) -> None:
        """End gdb (and with it the program it started); an attached program asked to end is killed."""
        debuggee = self._session.debuggee
        pid = debuggee.pid
        if pid and not debuggee.attached:
            # debugpy's adapter daemonises out of the debuggee's tree: find it before the end.
            descendants |= all_descendants(pid)
        self.gdb.close()
        if pid and debuggee.attached:
            # Attached and asked to terminate (a detach clears the pid): end that process only.
            kill(pid)


REVERSE_NEEDS_SETTING = 'Stepping back needs "reverse": true in launch.json (gdb then records jitted code).'


class AbsentJitSide(AbsentSide):
    """No gdb (modes python and cudasim, an attach to a debugpy port, or before the launch)."""

    def reverse(self, thread_id: int, gdb_kind: ResumeKind) -> None:
        raise DapError(REVERSE_NEEDS_SETTING)

    def interrupt(self) -> None:
        pass

    def arm_step_in(self, qualified_names: list[str]) -> None:
        pass

    def set_line_breakpoints(
        self, path: str, state: SourceBreakpoints, bps: list[LineBreakpoint]
    ) -> dict[int, dict[str, Any]]:
        return {}

    def delete_step_in_temps(self) -> None:
        pass

    def sync_python_backlog(self, gdb_thread: str | None) -> None:
        pass

    def detach(self, pid: int | None) -> None:
        pass

    def alive(self) -> bool:
        return True

    def inferior_pid(self) -> int | None:
        return None

    def close(self, descendants: set[int]) -> None:
        pass
