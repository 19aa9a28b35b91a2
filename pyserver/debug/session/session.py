"""One debug session over two sides: gdb (jitted frames) and debugpy (Python frames).

The session only coordinates its components: the editor client (the DAP stream), the jitted side (gdb)
and the Python side (debugpy), the debuggee process, the thread registry, the handles of frames and
variables, breakpoint routing, and the one stop state (which side holds the program). A request about a
stop goes to the side that owns it; a frame or variable reference remembers the side that made it.

Threads: the editor's requests are handled one at a time on a worker thread (which also starts gdb, so
gdb's parent-death signal stays armed for the session's life); gdb's async records arrive on the back
end's dispatcher thread and debugpy's events on the client's event thread. Shared state is changed under
`lock`, which every component shares and none holds while it waits on gdb or debugpy.
"""

from __future__ import annotations

import re
import threading
import traceback
from collections.abc import Callable
from typing import Any

from pyserver.debug.dap import DapError, DapStream, Message
from pyserver.debug.gdb.mi_protocol import GdbCommandError
from pyserver.debug.session import launch as launching
from pyserver.debug.session.breakpoints import BreakpointRouter
from pyserver.debug.session.client import EditorClient
from pyserver.debug.session.common import EXCEPTION_FILTERS
from pyserver.debug.session.debuggee import Debuggee
from pyserver.debug.session.handles import Handles
from pyserver.debug.session.jit_side import AbsentJitSide, JitSide
from pyserver.debug.session.python_side import AbsentPythonSide, PythonSide
from pyserver.debug.session.side import Side, StepKind
from pyserver.debug.session.stop import StopOwner, StopState
from pyserver.debug.session.threads import ThreadRegistry

# How long a pause waits for debugpy before gdb pauses the program (a thread in jitted code).
PYTHON_PAUSE_PATIENCE_S = 1.0


class Session:
    def __init__(self, stream: DapStream, log: Callable[[str], None] | None = None) -> None:
        self.lock = threading.RLock()
        self.client = EditorClient(stream, log or (lambda _msg: None), self.lock)
        self.handles = Handles(self.lock)
        self.stop = StopState(self.lock)
        self.stop.on_move(self.handles.forget)
        self.threads = ThreadRegistry(self.lock)
        self.breakpoints = BreakpointRouter(self)
        self.debuggee = Debuggee(self.client, self.lock, self.shutdown)
        self.jit: JitSide | AbsentJitSide = AbsentJitSide()
        self.python: PythonSide | AbsentPythonSide = AbsentPythonSide(self)

    # --- main loop -------------------------------------------------------------------------------
    def serve(self) -> int:
        worker = threading.Thread(target=self._work, name="dap-requests", daemon=True)
        worker.start()
        self.client.read_until_closed()
        worker.join(30)
        self.shutdown()
        return 0

    def _work(self) -> None:
        while True:
            request = self.client.next_request()
            if request is None:
                return
            self.handle(request)

    def handle(self, request: Message) -> None:
        command = str(request.get("command", ""))
        handler = getattr(self, "on_" + re.sub(r"(?<!^)(?=[A-Z])", "_", command).lower(), None)
        client = self.client
        if handler is None:
            if request.get("_eof") is None:
                client.respond(request, success=False, message=f"unsupported request '{command}'")
            return
        try:
            body = handler(request.get("arguments") or {})
        except DapError as exc:
            client.respond(request, success=False, message=str(exc), show_user=exc.show_user)
            return
        except GdbCommandError as exc:
            client.respond(request, success=False, message=f"gdb: {exc.message}")
            return
        except Exception as exc:  # the adapter stays alive whatever a request does
            client.log(f"{command} failed: {exc!r}")
            client.log(traceback.format_exc())
            client.respond(request, success=False, message=f"{command} failed: {exc}")
            return
        if request.get("_eof") is None:
            try:
                client.respond(request, body if isinstance(body, dict) else None)
            except (TypeError, ValueError) as exc:  # an unserialisable body must not end the worker
                client.log(f"{command}: bad response body: {exc!r}")
                client.respond(request, success=False, message=f"{command} failed: {exc}")

    def owner_side(self) -> Side:
        """The side that holds the program stopped (the Python side while it runs)."""
        return self.jit if self.stop.held_by(StopOwner.JIT) else self.python

    # --- launch ----------------------------------------------------------------------------------
    def on_initialize(self, args: dict[str, Any]) -> dict[str, Any]:
        self.client.can_run_in_terminal(bool(args.get("supportsRunInTerminalRequest", False)))
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
        launching.launch(self, args)
        return {}

    def on_attach(self, args: dict[str, Any]) -> dict[str, Any]:
        launching.attach(self, args)
        return {}

    def on_configuration_done(self, args: dict[str, Any]) -> dict[str, Any]:
        self.breakpoints.send_first_statement_stop()
        self.python.configuration_done()
        return {}

    # --- breakpoints -----------------------------------------------------------------------------
    def on_set_breakpoints(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"breakpoints": self.breakpoints.set_breakpoints(args)}

    def on_set_function_breakpoints(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"breakpoints": self.breakpoints.set_function_breakpoints(list(args.get("breakpoints") or []))}

    def on_set_exception_breakpoints(self, args: dict[str, Any]) -> dict[str, Any]:
        return self.python.set_exception_breakpoints(args)

    # --- threads, stacks, values -----------------------------------------------------------------
    def on_threads(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.debuggee.ended.is_set():
            return {"threads": []}
        # With gdb, its thread list (every native thread); else debugpy's.
        lister: Side = self.jit if self.jit.present else self.python
        return {"threads": lister.threads()}

    def on_stack_trace(self, args: dict[str, Any]) -> dict[str, Any]:
        thread_id = int(args.get("threadId", 0))
        start = int(args.get("startFrame") or 0)
        levels = int(args.get("levels") or 0)
        if self.stop.owner is None and self.jit.present:
            # Running (a request the editor sent before its Continue reached us): debugpy cannot answer
            # while jitted code holds the GIL, and nothing stands still to show.
            raise DapError("The program is running.", show_user=False)
        frames = self.owner_side().stack(thread_id, args)
        page = frames[start : start + levels] if levels else frames[start:]
        return {"stackFrames": page, "totalFrames": len(frames)}

    def on_scopes(self, args: dict[str, Any]) -> dict[str, Any]:
        frame = self.handles.frame(int(args.get("frameId", 0)))
        return {"scopes": frame.side.scopes(frame)}

    def on_variables(self, args: dict[str, Any]) -> dict[str, Any]:
        source = self.handles.variables(int(args.get("variablesReference", 0)))
        return {"variables": source.variables(args) if source is not None else []}

    def on_evaluate(self, args: dict[str, Any]) -> dict[str, Any]:
        frame_id = args.get("frameId")
        frame = self.handles.frame(int(frame_id)) if frame_id is not None else None
        side = frame.side if frame is not None else self.owner_side()
        return side.evaluate(args, frame)

    def on_exception_info(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.stop.owner is None:
            raise DapError("No exception information.")
        return self.owner_side().exception_info(int(args.get("threadId", 0)))

    # --- execution control -----------------------------------------------------------------------
    def on_continue(self, args: dict[str, Any]) -> dict[str, Any]:
        self.stop.require_stopped()
        self.owner_side().resume(int(args.get("threadId", 0)))
        return {"allThreadsContinued": True}

    def _step(self, args: dict[str, Any], kind: StepKind) -> dict[str, Any]:
        self.stop.require_stopped()
        self.owner_side().step(int(args.get("threadId", 0)), kind)
        return {}

    def on_next(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._step(args, StepKind.OVER)

    def on_step_in(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._step(args, StepKind.INTO)

    def on_step_out(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._step(args, StepKind.OUT)

    def on_step_back(self, args: dict[str, Any]) -> dict[str, Any]:
        self.stop.require_stopped()
        self.jit.reverse(int(args.get("threadId", 0)), "next")
        return {}

    def on_reverse_continue(self, args: dict[str, Any]) -> dict[str, Any]:
        self.stop.require_stopped()
        self.jit.reverse(int(args.get("threadId", 0)), "continue")
        return {}

    def on_pause(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.stop.owner is not None:
            return {}
        # debugpy cannot pause a thread in native (jitted) code: then gdb stops it.
        if not self.python.pause(PYTHON_PAUSE_PATIENCE_S if self.jit.present else None):
            self.jit.interrupt()
        return {}

    # --- ending ----------------------------------------------------------------------------------
    def on_terminate(self, args: dict[str, Any]) -> dict[str, Any]:
        self.shutdown()
        self.debuggee.end_for_editor(report_exit=True)
        return {}

    def on_disconnect(self, args: dict[str, Any]) -> dict[str, Any]:
        if self.debuggee.attached and not args.get("terminateDebuggee", False):
            self._detach()
        self.shutdown()
        self.debuggee.end_for_editor(report_exit=False)
        return {}

    def _detach(self) -> None:
        """Leave an attached process running: gdb detaches, debugpy lets go of its threads."""
        pid = self.debuggee.start_detach()
        self.jit.detach(pid)
        self.python.detach()

    def shutdown(self) -> None:
        """End gdb, debugpy's adapter and the debuggee; idempotent."""
        with self.debuggee.ending() as descendants:
            self.python.close(descendants)
            self.jit.close(descendants)
