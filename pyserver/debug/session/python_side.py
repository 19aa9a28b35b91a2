"""The Python side: debugpy, inside the program. It owns the stops in Python code (stacks, scopes,
variables, evaluate, steps, exceptions), holds the editor's Python breakpoints, and sends its events on
with our ids. Requests made while gdb holds the program wait in a backlog that gdb's side syncs before
resuming. Without debugpy (before it connects) the session has an AbsentPythonSide."""

from __future__ import annotations

import ast
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyserver.debug.dap import DapError, Message
from pyserver.debug.debuggee.inside import BOOTSTRAP
from pyserver.debug.debuggee.snippets import VISIBLE_DISPATCHERS
from pyserver.debug.launch_spec import AttachSpec, LaunchSpec
from pyserver.debug.python.debugpy_client import DebugpyClient, Reply
from pyserver.debug.session.common import DEBUGPY_REPLY_TIMEOUT_S, SourceBreakpoints
from pyserver.debug.session.side import AbsentSide, FrameKind, FrameRef, StepKind
from pyserver.debug.session.stop import StopOwner
from pyserver.debug.stop_intent import IntentKind

if TYPE_CHECKING:
    from pyserver.debug.session.session import Session

# How long a request waits for debugpy while the program runs in jitted code that may hold the GIL.
PATIENCE_WHILE_NATIVE_S = 2.0
# At most this many jitted functions get a temporary breakpoint for a Step Into from a Python line.
MAX_STEP_IN_TARGETS = 200


@dataclass
class DebugpyVariables:
    """A variable reference of debugpy's."""

    side: PythonSide
    theirs: int

    def variables(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        body = self.side.forward("variables", {**args, "variablesReference": self.theirs})
        return self.side.with_references(body.get("variables", []))


class PythonSide:
    present = True

    def __init__(self, session: Session, client: DebugpyClient, spec: LaunchSpec | AttachSpec) -> None:
        self._session = session
        self._spec = spec
        self._lock = session.lock
        self.client = client
        self._backlog: list[Reply] = []  # requests made while gdb held the program, not answered yet
        client.add_listener(self.on_event)

    @property
    def connected(self) -> bool:
        return self.client.connected

    def request(self, command: str, arguments: dict[str, Any] | None = None) -> Reply:
        return self.client.request(command, arguments)

    def forward(self, command: str, args: dict[str, Any]) -> dict[str, Any]:
        response = self.client.request(command, args).wait(DEBUGPY_REPLY_TIMEOUT_S)
        if response is None:
            raise DapError(f"debugpy did not answer '{command}' in time.")
        if not response.get("success"):
            raise DapError(str(response.get("message") or f"debugpy: {command} failed"), show_user=False)
        return dict(response.get("body") or {})

    def patience(self) -> float:
        """How long a request may wait for debugpy. While the program runs in mixed mode, a thread in
        jitted code may hold the GIL for minutes: answer the editor soon and update it later."""
        session = self._session
        if session.stop.held_by(StopOwner.PYTHON) or not session.jit.present:
            return DEBUGPY_REPLY_TIMEOUT_S
        return PATIENCE_WHILE_NATIVE_S

    # --- the backlog -----------------------------------------------------------------------------
    def later(self, reply: Reply) -> None:
        """A request debugpy answers once gdb lets the program run."""
        with self._lock:
            self._backlog.append(reply)

    def take_backlog(self) -> list[Reply]:
        with self._lock:
            backlog = [reply for reply in self._backlog if not reply.done]
            self._backlog = []
        return backlog

    def set_exception_breakpoints(self, args: dict[str, Any]) -> dict[str, Any]:
        """While gdb holds the program the request goes to the backlog; else its answer is waited for."""
        reply = self.client.request("setExceptionBreakpoints", args)
        if self._session.stop.held_by(StopOwner.JIT):
            self.later(reply)
            return {}
        response = reply.wait(self.patience())
        if response is not None and response.get("body"):
            return dict(response["body"])
        return {}

    def configuration_done(self) -> None:
        self.client.request("configurationDone").wait(DEBUGPY_REPLY_TIMEOUT_S)

    # --- threads and stacks ----------------------------------------------------------------------
    def threads(self) -> list[dict[str, Any]]:
        return list(self.forward("threads", {}).get("threads", []))

    def stack(self, thread_id: int, args: dict[str, Any]) -> list[dict[str, Any]]:
        session = self._session
        theirs = session.threads.debugpy_thread(thread_id)
        body = self.forward("stackTrace", {**args, "threadId": theirs, "startFrame": 0, "levels": 0})
        frames = []
        for frame in body.get("stackFrames", []):
            path = str((frame.get("source") or {}).get("path") or "")
            if not self._spec.show_internal and path == str(BOOTSTRAP):
                continue
            ref = FrameRef(self, FrameKind.PYTHON, thread_id, debugpy_frame=int(frame["id"]))
            frames.append({**frame, "id": session.handles.frame_id(ref)})
        return frames

    def with_references(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [self.with_reference(dict(item)) for item in items]

    def with_reference(self, item: dict[str, Any]) -> dict[str, Any]:
        theirs = int(item.get("variablesReference") or 0)
        handles = self._session.handles
        item["variablesReference"] = (
            handles.variables_reference(DebugpyVariables(self, theirs)) if theirs else 0
        )
        return item

    def scopes(self, frame: FrameRef) -> list[dict[str, Any]]:
        body = self.forward("scopes", {"frameId": frame.debugpy_frame})
        return self.with_references(body.get("scopes", []))

    def evaluate(self, args: dict[str, Any], frame: FrameRef | None) -> dict[str, Any]:
        forwarded = {**args}
        if frame is not None:
            forwarded["frameId"] = frame.debugpy_frame
        return self.with_reference(self.forward("evaluate", forwarded))

    def exception_info(self, thread_id: int) -> dict[str, Any]:
        return self.forward("exceptionInfo", {"threadId": self._session.threads.debugpy_thread(thread_id)})

    # --- running on ------------------------------------------------------------------------------
    def resume(self, thread_id: int) -> None:
        session = self._session
        session.stop.update_intent(kind=IntentKind.CONTINUE, live_after_replay=False)
        theirs = session.threads.debugpy_thread(thread_id)
        session.stop.resumed()
        self.client.request("continue", {"threadId": theirs})

    def step(self, thread_id: int, kind: StepKind) -> None:
        session = self._session
        session.stop.update_intent(kind=IntentKind.STEP, live_after_replay=False)
        theirs = session.threads.debugpy_thread(thread_id)
        session.stop.update_intent(python_step_thread=theirs)
        command = kind.value
        if kind is StepKind.INTO and session.jit.present:
            # A Python line may call a jitted function: stop at its first line if it does.
            session.jit.arm_step_in(self._visible_jitted_functions(theirs))
            command = StepKind.OVER.value
        session.stop.resumed()
        self.client.request(command, {"threadId": theirs})

    def _visible_jitted_functions(self, theirs: int) -> list[str]:
        """gdb's qualified names of the jitted functions the thread's frame can call: every dispatcher in
        its globals and locals (imported ones included), asked from debugpy, which owns the stop."""
        session = self._session
        stack = self.client.request("stackTrace", {"threadId": theirs, "levels": 1}).wait(
            DEBUGPY_REPLY_TIMEOUT_S
        )
        frames = ((stack or {}).get("body") or {}).get("stackFrames") or []
        if not frames:
            return []
        reply = self.client.request(
            "evaluate", {"expression": VISIBLE_DISPATCHERS, "frameId": frames[0]["id"], "context": "repl"}
        ).wait(DEBUGPY_REPLY_TIMEOUT_S)
        names: list[tuple[str, str]] = []
        try:
            found = ast.literal_eval(str(((reply or {}).get("body") or {}).get("result", "")))
            names = [(str(m), str(q)) for m, q in found if "<locals>" not in str(q)]
        except (ValueError, SyntaxError, TypeError) as exc:
            session.client.log(f"no dispatchers from debugpy ({exc!r}); using the frame's file")
            path = str((frames[0].get("source") or {}).get("path") or "")
            names = [("__main__", f.name) for f in session.breakpoints.jitted_functions(path)]
        return [
            "::".join([*module.split("."), *qualname.split(".")])
            for module, qualname in names[:MAX_STEP_IN_TARGETS]
        ]

    def cancel_step(self) -> None:
        """A Python step that ended in jitted code (a Step Into, or a breakpoint there) is still pending
        in debugpy: after a Continue it would stop at the next Python line once the jitted call returns.
        debugpy's continue clears it; it reaches debugpy before the program runs on (the backlog)."""
        thread = self._session.stop.update_intent(python_step_thread=None).python_step_thread
        if thread is None:
            return
        self.later(self.client.request("continue", {"threadId": thread}))

    def pause(self, patience: float | None) -> bool:
        """Pause through debugpy; False when it could not within `patience` (None: no waiting), so that
        gdb pauses instead (the pause debugpy acts on later is then dropped)."""
        if not self.client.connected:
            return False
        stopped = threading.Event()

        def on_event(message: Message) -> None:
            if message.get("event") == "stopped":
                stopped.set()

        self.client.add_listener(on_event)
        try:
            self.client.request("pause", {"threadId": "*"})
            if patience is None or stopped.wait(patience):
                return True
        finally:
            self.client.remove_listener(on_event)
        self._session.stop.update_intent(drop_debugpy_pause=True)
        return False

    # --- breakpoints -----------------------------------------------------------------------------
    def set_source_breakpoints(
        self,
        source: dict[str, Any],
        bps: list[dict[str, Any]],
        state: SourceBreakpoints,
        our_ids: list[int],
        placeholders: list[dict[str, Any]],
    ) -> list[dict[str, Any]]:
        session = self._session
        first_statement_stop = session.breakpoints.first_statement_stop_in(str(source.get("path") or ""), bps)
        sent = bps + ([first_statement_stop.as_breakpoint()] if first_statement_stop is not None else [])
        sent_ids = our_ids + ([first_statement_stop.dap_id] if first_statement_stop is not None else [])
        reply = self.client.request("setBreakpoints", {"source": source, "breakpoints": sent})

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

        held_by_gdb = session.stop.held_by(StopOwner.JIT)
        if not held_by_gdb:
            response = reply.wait(self.patience())
            if response is not None and response.get("success"):
                translated = translate(response)
                if len(translated) == len(bps):
                    return translated

        # debugpy cannot answer now (gdb holds the process): tell the editor when it does.
        def later(response: Message) -> None:
            if response.get("success"):
                for item in translate(response):
                    session.client.event("breakpoint", {"reason": "changed", "breakpoint": item})

        reply.then(later)
        if held_by_gdb:
            self.later(reply)
        for placeholder in placeholders:
            placeholder["message"] = (
                "Set when the program resumes (gdb holds it now)"
                if held_by_gdb
                else "Set when debugpy can answer (the program is in native code that holds the GIL)"
            )
        return placeholders

    def set_function_breakpoints(self, bps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Modes python and cudasim: jitted functions run as Python, so debugpy's function breakpoints
        (matched on the function's name) stop in them. VS Code sends this request, often empty, at every
        start: it never fails as a whole."""
        our_ids = [self._session.handles.new_id() for _ in bps]
        sent = [{**bp, "name": str(bp.get("name", "")).split("::")[-1].split(".")[-1]} for bp in bps]
        response = self.client.request("setFunctionBreakpoints", {"breakpoints": sent}).wait(self.patience())
        if response is None or not response.get("success"):
            return function_breakpoints_not_set(our_ids, (response or {}).get("message"))
        theirs = (response.get("body") or {}).get("breakpoints") or []
        return self._session.breakpoints.python_function_breakpoints_set(our_ids, theirs)

    # --- events ----------------------------------------------------------------------------------
    def on_event(self, message: Message) -> None:
        session = self._session
        event = message.get("event")
        body = dict(message.get("body") or {})
        router = session.breakpoints
        if event == "stopped":
            # What this stop means to the session: read here, once; any debugpy stop ends a Python step.
            intent = session.stop.update_intent(python_step_thread=None)
            stop = router.first_statement_stop
            hit = [int(i) for i in body.get("hitBreakpointIds") or []]
            if stop is not None and any(router.our_bp_id(i) == stop.dap_id for i in hit):
                # One-shot: its condition is false from now on in the program; sending the file's
                # breakpoints again to remove it would leave a moment without the editor's own ones,
                # which another kernel thread could run through. It is left out of later requests.
                stop.active = False
                body["reason"] = "function breakpoint"
                what = self._spec.mode.jitted_function_word.split()[-1]
                body["description"] = f"Paused at the first line of {what} {stop.name} (stopAtJitFunction)"
                rest = [i for i in hit if router.our_bp_id(i) != stop.dap_id]
                if rest:
                    body["hitBreakpointIds"] = rest
                else:
                    body.pop("hitBreakpointIds", None)
            if intent.drop_debugpy_pause and body.get("reason") == "pause":
                session.stop.update_intent(drop_debugpy_pause=False)
                self.client.request("continue", {"threadId": body.get("threadId")})
                return
            native = self.native_of_thread(int(body.get("threadId", 0)))
            session.stop.take(StopOwner.PYTHON, native)
            session.jit.delete_step_in_temps()
            body["threadId"] = native
            if intent.python_caller:
                body["reason"] = "step"
                session.stop.update_intent(python_caller=False)
            if "hitBreakpointIds" in body:
                body["hitBreakpointIds"] = [router.our_bp_id(i) for i in body["hitBreakpointIds"]]
            session.client.event("stopped", body)
        elif event == "continued":
            if session.stop.held_by(StopOwner.PYTHON):
                session.stop.resumed()
            body["threadId"] = self.native_of_thread(int(body.get("threadId", 0)))
            session.client.event("continued", body)
        elif event == "output":
            # With redirectOutput off the program's own output comes through the pty; what debugpy
            # sends as stdout is its log points.
            if body.get("category") == "telemetry":
                return
            session.client.event("output", body)
        elif event == "breakpoint":
            bp = dict(body.get("breakpoint") or {})
            if "id" in bp:
                bp["id"] = router.our_bp_id(int(bp["id"]))
                session.client.event(
                    "breakpoint", {"reason": body.get("reason", "changed"), "breakpoint": bp}
                )
        elif event == "thread":
            if not session.jit.present:
                session.client.event("thread", body)
        elif event in ("terminated", "_disconnected"):
            if not session.jit.present and not session.debuggee.runs_plain:
                session.debuggee.exited(None)  # attach: the debuggee is not ours

    def native_of_thread(self, theirs: int) -> int:
        registry = self._session.threads
        known = registry.known_native_of_debugpy(theirs)
        if known is not None:
            return known
        native = self._ask_native_thread_id(theirs)
        if native is None:
            return theirs
        registry.add_debugpy_thread(theirs, native)
        return native

    def _ask_native_thread_id(self, theirs: int) -> int | None:
        """debugpy knows its threads by its own ids; ask the stopped thread for its native id."""
        session = self._session
        threads = self.client.request("threads").wait(DEBUGPY_REPLY_TIMEOUT_S)
        for thread in ((threads or {}).get("body") or {}).get("threads", []):
            if int(thread.get("id", -1)) == theirs:
                session.threads.name_debugpy_thread(theirs, str(thread.get("name", "")))
                if thread.get("name") == "MainThread" and session.debuggee.pid:
                    return session.debuggee.pid
        stack = self.client.request("stackTrace", {"threadId": theirs, "levels": 1}).wait(
            DEBUGPY_REPLY_TIMEOUT_S
        )
        frames = ((stack or {}).get("body") or {}).get("stackFrames") or []
        if not frames:
            return None
        result = self.client.request(
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

    # --- the end ---------------------------------------------------------------------------------
    def detach(self) -> None:
        if self.client.connected:
            self.client.request("disconnect", {"terminateDebuggee": False}).wait(5.0)

    def close(self, descendants: set[int]) -> None:
        self.client.close()


def function_breakpoints_not_set(our_ids: list[int], reason: str | None) -> list[dict[str, Any]]:
    message = f"Function breakpoint not set: {reason or 'debugpy did not answer'}"
    return [{"id": our_id, "verified": False, "message": message} for our_id in our_ids]


class AbsentPythonSide(AbsentSide):
    """debugpy is not connected (yet)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def take_backlog(self) -> list[Reply]:
        return []

    def set_exception_breakpoints(self, args: dict[str, Any]) -> dict[str, Any]:
        return {}

    def configuration_done(self) -> None:
        pass

    def cancel_step(self) -> None:
        self._session.stop.update_intent(python_step_thread=None)

    def pause(self, patience: float | None) -> bool:
        return False

    def set_source_breakpoints(
        self,
        source: dict[str, Any],
        bps: list[dict[str, Any]],
        state: SourceBreakpoints,
        our_ids: list[int],
        placeholders: list[dict[str, Any]],
    ) -> list[dict[str, Any]]:
        return placeholders

    def set_function_breakpoints(self, bps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return function_breakpoints_not_set([self._session.handles.new_id() for _ in bps], None)

    def detach(self) -> None:
        pass

    def close(self, descendants: set[int]) -> None:
        pass
