"""The editor client: the DAP stream to VS Code. Requests are queued for the session's worker, responses
to our own requests (runInTerminal) go to whoever waits for them, and events and output go out."""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

from pyserver.debug.dap import DapStream, Message
from pyserver.debug.terminal import TerminalHolder, holder_command, wait_for_holder

# How much of the program's own output is kept, to tell why debugpy could not start in it.
OUTPUT_TAIL_CHARS = 8000


class EditorClient:
    def __init__(self, stream: DapStream, log: Callable[[str], None], lock: threading.RLock) -> None:
        self.stream = stream
        self.log = log
        self._lock = lock
        self._requests: queue.Queue[Message | None] = queue.Queue()
        self._waiters: dict[int, tuple[threading.Event, list[Message]]] = {}
        self._runs_in_terminal = False
        self._terminated_sent = False
        self._output_tail = ""

    # --- reading ---------------------------------------------------------------------------------
    def read_until_closed(self) -> None:
        """Read the stream until the editor goes away; then queue the disconnect that ends everything."""
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
                    waiter = self._waiters.pop(int(message.get("request_seq", -1)), None)
                if waiter is not None:
                    waiter[1].append(message)
                    waiter[0].set()
        self._requests.put({"type": "request", "command": "disconnect", "seq": 0, "_eof": True})
        self._requests.put(None)

    def next_request(self) -> Message | None:
        """The next request to handle, or None once the editor is gone."""
        return self._requests.get()

    # --- writing ---------------------------------------------------------------------------------
    def respond(self, request: Message, body: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.stream.respond(request, body, **kwargs)

    def event(self, event: str, body: dict[str, Any] | None = None) -> None:
        self.stream.event(event, body)

    def output(self, text: str, category: str = "console") -> None:
        if category in ("stdout", "stderr"):
            with self._lock:
                self._output_tail = (self._output_tail + text)[-OUTPUT_TAIL_CHARS:]
        self.stream.event("output", {"category": category, "output": text})

    @property
    def program_output_tail(self) -> str:
        return self._output_tail

    def send_terminated(self) -> None:
        """The terminated event, once."""
        with self._lock:
            if self._terminated_sent:
                return
            self._terminated_sent = True
        self.stream.event("terminated")

    # --- requests to the editor ------------------------------------------------------------------
    def can_run_in_terminal(self, supported: bool) -> None:
        self._runs_in_terminal = supported

    def reverse_request(self, command: str, arguments: dict[str, Any], timeout: float) -> Message | None:
        """A request to the editor (runInTerminal); its response, or None."""
        done = threading.Event()
        box: list[Message] = []
        with self._lock:
            seq = self.stream.request(command, arguments)
            self._waiters[seq] = (done, box)
        done.wait(timeout)
        return box[0] if box else None

    def terminal(self, cwd: str, title: str) -> TerminalHolder | None:
        """The editor's integrated terminal for the program (console: integratedTerminal), or None."""
        if not self._runs_in_terminal:
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
