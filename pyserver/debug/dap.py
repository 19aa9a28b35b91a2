"""The Debug Adapter Protocol message layer: Content-Length framing, sequence numbers, requests,
responses and events. Used both towards the editor (stdio) and towards debugpy (a socket)."""

from __future__ import annotations

import itertools
import json
import threading
from typing import Any, BinaryIO

Message = dict[str, Any]


class DapError(Exception):
    """A request that fails with a message meant for the user (sent as an error response)."""

    def __init__(self, message: str, *, show_user: bool = True) -> None:
        super().__init__(message)
        self.show_user = show_user


class DapStream:
    """Reads and writes framed DAP messages; `send` is thread-safe and stamps `seq`."""

    def __init__(self, reader: BinaryIO, writer: BinaryIO) -> None:
        self._reader = reader
        self._writer = writer
        self._write_lock = threading.Lock()
        self._seq = itertools.count(1)
        self.closed = False

    def read(self) -> Message | None:
        """The next message, or None at end of stream."""
        length = -1
        while True:
            line = self._reader.readline()
            if not line:
                return None
            stripped = line.strip()
            if not stripped:
                if length >= 0:
                    break
                continue
            name, _, value = stripped.decode("ascii", errors="replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        body = b""
        while len(body) < length:
            chunk = self._reader.read(length - len(body))
            if not chunk:
                return None
            body += chunk
        message: Message = json.loads(body.decode("utf-8"))
        return message

    def send(self, message: Message) -> int:
        with self._write_lock:
            seq = next(self._seq)
            message["seq"] = seq
            body = json.dumps(message, separators=(",", ":")).encode("utf-8")
            try:
                self._writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self._writer.flush()
            except (OSError, ValueError):
                self.closed = True
            return seq

    def request(self, command: str, arguments: dict[str, Any] | None = None) -> int:
        message: Message = {"type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        return self.send(message)

    def event(self, event: str, body: dict[str, Any] | None = None) -> None:
        message: Message = {"type": "event", "event": event}
        if body is not None:
            message["body"] = body
        self.send(message)

    def respond(
        self,
        request: Message,
        body: dict[str, Any] | None = None,
        *,
        success: bool = True,
        message: str | None = None,
        show_user: bool = False,
    ) -> None:
        response: Message = {
            "type": "response",
            "request_seq": request.get("seq", 0),
            "command": request.get("command", ""),
            "success": success,
        }
        if body is not None:
            response["body"] = body
        if message is not None:
            response["message"] = message
            if not success:
                response["body"] = {
                    **(body or {}),
                    "error": {"id": 1, "format": message, "showUser": show_user},
                }
        self.send(response)
