"""Small doubles for the debug session's coordination tests: an editor stream that records what it is
sent, a debugpy client that answers from a table, and a jitted side that records what it is asked.
Nothing here starts a process."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from pyserver.debug.dap import Message
from pyserver.debug.gdb.backend import MIRecord
from pyserver.debug.launch_spec import AttachSpec
from pyserver.debug.session import Session
from pyserver.debug.session.common import LineBreakpoint, SourceBreakpoints
from pyserver.debug.session.debuggee import Debuggee
from pyserver.debug.session.jit_side import JitSide
from pyserver.debug.session.python_side import PythonSide
from pyserver.debug.session.side import FrameKind, FrameRef, StepKind


class RecordingStream:
    """The editor's end of the DAP stream: it records events and responses, and reads nothing."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any] | None]] = []
        self.responses: list[Message] = []
        self._seq = 0

    def read(self) -> Message | None:
        return None

    def event(self, event: str, body: dict[str, Any] | None = None) -> None:
        self.events.append((event, body))

    def respond(self, request: Message, body: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.responses.append({"request": request, "body": body, **kwargs})

    def request(self, command: str, arguments: dict[str, Any] | None = None) -> int:
        self._seq += 1
        return self._seq

    def named(self, event: str) -> list[dict[str, Any] | None]:
        return [body for name, body in self.events if name == event]


class AnsweredReply:
    """A debugpy reply that has its answer already (Reply's interface)."""

    def __init__(self, command: str, body: dict[str, Any], success: bool = True) -> None:
        self.command = command
        self.response: Message = {"success": success, "body": body}
        self.done = True

    def wait(self, timeout: float) -> Message | None:
        return self.response

    def then(self, callback: Callable[[Message], None]) -> None:
        callback(self.response)


class TableDebugpy:
    """A debugpy client whose answers come from `answers` (command -> body, or a function of the
    arguments); `requests` records what it was sent, `emit` sends it an event."""

    connected = True

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.answers: dict[str, Any] = answers or {}
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.listeners: list[Callable[[Message], None]] = []

    def add_listener(self, listener: Callable[[Message], None]) -> None:
        self.listeners.append(listener)

    def remove_listener(self, listener: Callable[[Message], None]) -> None:
        self.listeners.remove(listener)

    def request(self, command: str, arguments: dict[str, Any] | None = None) -> AnsweredReply:
        args = dict(arguments or {})
        self.requests.append((command, args))
        answer = self.answers.get(command, {})
        return AnsweredReply(command, answer(args) if callable(answer) else answer)

    def emit(self, event: str, body: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            listener({"type": "event", "event": event, "body": body})

    def commands(self) -> list[str]:
        return [command for command, _ in self.requests]

    def close(self) -> None:
        pass


class RecordingJitSide:
    """The jitted side of a session with gdb, without gdb: it records what the session asks of it."""

    present = True
    records = False
    recording = False

    def __init__(self, session: Session) -> None:
        self.session = session
        self.calls: list[tuple[Any, ...]] = []
        self.line_breakpoints: list[LineBreakpoint] = []

    def threads(self) -> list[dict[str, Any]]:
        return [{"id": 101, "name": "MainThread (101)"}]

    def stack(self, thread_id: int, args: dict[str, Any]) -> list[dict[str, Any]]:
        self.calls.append(("stack", thread_id))
        ref = FrameRef(self, FrameKind.JIT, thread_id, "1", 0, path="/x.py", line=3)  # type: ignore[arg-type]
        return [{"id": self.session.handles.frame_id(ref), "name": "jitted", "line": 3}]

    def scopes(self, frame: FrameRef) -> list[dict[str, Any]]:
        self.calls.append(("scopes", frame.kind))
        return [{"name": "Locals", "variablesReference": 0}]

    def evaluate(self, args: dict[str, Any], frame: FrameRef | None) -> dict[str, Any]:
        self.calls.append(("evaluate", args.get("expression"), frame))
        return {"result": "gdb", "variablesReference": 0}

    def resume(self, thread_id: int) -> None:
        self.calls.append(("resume", thread_id))
        self.session.stop.resumed()

    def step(self, thread_id: int, kind: StepKind) -> None:
        self.calls.append(("step", thread_id, kind))
        self.session.stop.resumed()

    def exception_info(self, thread_id: int) -> dict[str, Any]:
        return {"exceptionId": "SIGSEGV", "breakMode": "always"}

    def set_function_breakpoints(self, bps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.calls.append(("function breakpoints", [bp["name"] for bp in bps]))
        return [{"id": 900 + i, "verified": True} for i, _ in enumerate(bps)]

    def set_line_breakpoints(
        self, path: str, state: SourceBreakpoints, bps: list[LineBreakpoint]
    ) -> dict[int, dict[str, Any]]:
        self.line_breakpoints = list(bps)
        return {bp.index: {"id": 500 + bp.index, "verified": True, "line": bp.args["line"]} for bp in bps}

    def arm_step_in(self, qualified_names: list[str]) -> None:
        self.calls.append(("arm step in", qualified_names))

    def delete_step_in_temps(self) -> None:
        self.calls.append(("delete step in",))

    def interrupt(self) -> None:
        self.calls.append(("interrupt",))

    def reverse(self, thread_id: int, gdb_kind: str) -> None:
        self.calls.append(("reverse", thread_id, gdb_kind))

    def sync_python_backlog(self, gdb_thread: str | None) -> None:
        pass

    def detach(self, pid: int | None) -> None:
        self.calls.append(("detach", pid))

    def alive(self) -> bool:
        return True

    def inferior_pid(self) -> int | None:
        return None

    def close(self, descendants: set[int]) -> None:
        self.calls.append(("close",))


class KeptDebuggee(Debuggee):
    """The debuggee of a session without processes: its end kills nothing (the session's own process is
    the test's, whose other children are not the session's)."""

    @contextmanager
    def ending(self) -> Iterator[set[int]]:
        yield set()


def new_session() -> Session:
    session = Session(RecordingStream())  # type: ignore[arg-type]
    session.debuggee = KeptDebuggee(session.client, session.lock, session.shutdown)
    return session


def build_session(
    *, with_gdb: bool, debugpy: TableDebugpy | None = None
) -> tuple[Session, RecordingJitSide | None]:
    """A session as a launch leaves it: with a recording jitted side (mode mixed) or none, and with a
    Python side over `debugpy` when one is given."""
    session = new_session()
    jit = None
    if with_gdb:
        jit = RecordingJitSide(session)
        session.jit = jit  # type: ignore[assignment]
        session.threads.use_native_ids()
    if debugpy is not None:
        spec = AttachSpec.from_args({"processId": 1} if with_gdb else {"port": 5678})
        session.python = PythonSide(session, debugpy, spec)  # type: ignore[arg-type]
    return session, jit


def stream_of(session: Session) -> RecordingStream:
    return session.client.stream  # type: ignore[return-value]


class ScriptedGdb:
    """gdb's MI back end without gdb: breakpoints are inserted pending, expressions evaluate to `value`,
    everything else succeeds; `commands` records what was sent, `emit` sends the session a record."""

    def __init__(self, value: str = "42") -> None:
        self.value = value
        self.commands: list[str] = []
        self.listeners: list[Callable[[MIRecord], None]] = []
        self.exited = threading.Event()
        self._numbers = itertools.count(1)

    def add_listener(self, listener: Callable[[MIRecord], None]) -> None:
        self.listeners.append(listener)

    def execute(self, command: str, timeout: float = 10.0) -> dict[str, Any]:
        self.commands.append(command)
        if command.startswith("-break-insert"):
            return {"bkpt": {"number": str(next(self._numbers)), "addr": "<PENDING>", "pending": "f"}}
        if command.startswith("-data-evaluate-expression"):
            return {"value": self.value}
        return {}

    def execute_console(self, command: str, timeout: float = 10.0) -> str:
        self.commands.append(command)
        return ""

    def emit(self, message: str, payload: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            listener(MIRecord("*", message, payload))

    def resumes(self) -> list[str]:
        return [
            c
            for c in self.commands
            if c.startswith(("-exec-continue", "-exec-next", "-exec-step", "-exec-finish"))
        ]

    def close(self) -> None:
        self.exited.set()


def session_with_gdb(gdb: ScriptedGdb) -> tuple[Session, JitSide]:
    """A session whose jitted side is the real one, over a scripted gdb."""
    session = new_session()
    jit = JitSide(session, gdb, AttachSpec.from_args({"processId": 1}))  # type: ignore[arg-type]
    session.jit = jit
    return session, jit
