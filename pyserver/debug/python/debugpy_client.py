"""A DAP client to debugpy inside the debuggee.

Requests are sent at once and answered through `Reply` objects: the session never has to wait. While
gdb holds the process, debugpy cannot answer (its threads are stopped, or the GIL is held by a thread in
jitted code); its replies arrive after gdb resumes, and callbacks run then.
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from pyserver.debug.dap import DapStream, Message

EventListener = Callable[[Message], None]


class Reply:
    """The future answer to one request."""

    def __init__(self, command: str) -> None:
        self.command = command
        self._done = threading.Event()
        self.response: Message | None = None
        self._callbacks: list[Callable[[Message], None]] = []
        self._lock = threading.Lock()

    def wait(self, timeout: float) -> Message | None:
        """The response, or None if it did not come within `timeout`."""
        self._done.wait(timeout)
        return self.response

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def then(self, callback: Callable[[Message], None]) -> None:
        with self._lock:
            if self.response is None:
                self._callbacks.append(callback)
                return
        callback(self.response)

    def _resolve(self, response: Message) -> list[Callable[[Message], None]]:
        with self._lock:
            self.response = response
            callbacks, self._callbacks = self._callbacks, []
        self._done.set()
        return callbacks


class DebugpyClient:
    def __init__(self, log: Callable[[str], None] | None = None) -> None:
        self._log = log or (lambda _msg: None)
        self._sock: socket.socket | None = None
        self._stream: DapStream | None = None
        self._replies: dict[int, Reply] = {}
        self._lock = threading.Lock()
        self._listeners: list[EventListener] = []
        # Events and reply callbacks run on one thread, in arrival order, off the socket reader.
        self._work: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self.disconnected = threading.Event()
        self._worker = threading.Thread(target=self._run_work, name="debugpy-events", daemon=True)
        self._worker.start()

    def add_listener(self, listener: EventListener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: EventListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def connect(self, port: int, timeout: float, alive: Callable[[], bool] = lambda: True) -> None:
        """Connect to debugpy's listener on 127.0.0.1, retrying until it listens or time runs out."""
        deadline = time.monotonic() + timeout
        last_error: OSError | None = None
        while time.monotonic() < deadline and alive():
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=2.0)
                sock.settimeout(None)
                # Small requests sent back to back must not wait for debugpy's delayed ACKs (Nagle).
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._sock = sock
                break
            except OSError as exc:
                last_error = exc
                time.sleep(0.01)  # the debuggee waits for us: connect as soon as it listens
        if self._sock is None:
            raise ConnectionError(f"debugpy did not listen on 127.0.0.1:{port}: {last_error}")
        self._stream = DapStream(self._sock.makefile("rb"), self._sock.makefile("wb"))
        threading.Thread(target=self._read, name="debugpy-reader", daemon=True).start()

    @property
    def connected(self) -> bool:
        return self._stream is not None and not self.disconnected.is_set()

    def request(self, command: str, arguments: dict[str, Any] | None = None) -> Reply:
        reply = Reply(command)
        if self._stream is None or self.disconnected.is_set():
            reply._resolve(
                {"type": "response", "command": command, "success": False, "message": "debugpy is gone"}
            )
            return reply
        with self._lock:
            # The seq is assigned inside send; register under the lock so the reply cannot race us.
            seq = self._stream.request(command, arguments)
            self._replies[seq] = reply
        self._log(f"debugpy <- {command} {arguments if command != 'setBreakpoints' else ''}")
        return reply

    def _read(self) -> None:
        assert self._stream is not None
        try:
            while True:
                try:
                    message = self._stream.read()
                except (OSError, ValueError) as exc:
                    self._log(f"debugpy stream error: {exc}")
                    message = None
                if message is None:
                    break
                kind = message.get("type")
                if kind == "response":
                    with self._lock:
                        reply = self._replies.pop(int(message.get("request_seq", -1)), None)
                    if reply is not None:
                        callbacks = reply._resolve(message)
                        for callback in callbacks:
                            self._work.put(lambda cb=callback, m=message: cb(m))  # type: ignore[misc]
                elif kind == "event":
                    self._log(f"debugpy event {message.get('event')}")
                    self._work.put(lambda m=message: self._emit(m))  # type: ignore[misc]
        finally:
            self.disconnected.set()
            with self._lock:
                replies, self._replies = list(self._replies.values()), {}
            for reply in replies:
                for callback in reply._resolve(
                    {
                        "type": "response",
                        "command": reply.command,
                        "success": False,
                        "message": "debugpy is gone",
                    }
                ):
                    self._work.put(lambda cb=callback, r=reply: cb(r.response or {}))  # type: ignore[misc]
            self._work.put(lambda: self._emit({"type": "event", "event": "_disconnected"}))

    def _emit(self, message: Message) -> None:
        for listener in list(self._listeners):
            try:
                listener(message)
            except Exception as exc:
                self._log(f"debugpy listener failed: {exc!r}")

    def _run_work(self) -> None:
        while True:
            item = self._work.get()
            if item is None:
                return
            try:
                item()
            except Exception as exc:
                self._log(f"debugpy callback failed: {exc!r}")

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                self._sock.close()
            except OSError:
                pass
        self._work.put(None)
