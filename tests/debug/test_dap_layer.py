"""The DAP message layer: framing, sequence numbers, error responses."""

from __future__ import annotations

import io
import json

from pyserver.debug.dap import DapStream


def framed(*bodies: dict) -> bytes:
    out = b""
    for body in bodies:
        data = json.dumps(body).encode()
        out += b"content-length: %d\r\n\r\n" % len(data) + data
    return out


def test_reads_several_messages_and_unicode() -> None:
    raw = framed({"type": "request", "seq": 1, "command": "a"}, {"type": "event", "seq": 2, "event": "é∑"})
    stream = DapStream(io.BytesIO(raw), io.BytesIO())
    assert stream.read() == {"type": "request", "seq": 1, "command": "a"}
    assert stream.read() == {"type": "event", "seq": 2, "event": "é∑"}
    assert stream.read() is None


def test_writes_sequenced_responses_and_errors() -> None:
    out = io.BytesIO()
    stream = DapStream(io.BytesIO(), out)
    stream.respond(
        {"seq": 7, "command": "launch"}, success=False, message="Program not found", show_user=True
    )
    stream.event("stopped", {"reason": "breakpoint"})
    reader = DapStream(io.BytesIO(out.getvalue()), io.BytesIO())
    response, event = reader.read(), reader.read()
    assert response is not None and event is not None
    assert response["request_seq"] == 7 and response["success"] is False
    assert (
        response["body"]["error"]["format"] == "Program not found" and response["body"]["error"]["showUser"]
    )
    assert (response["seq"], event["seq"]) == (1, 2)
    assert event["body"] == {"reason": "breakpoint"}


def test_truncated_stream_ends_cleanly() -> None:
    raw = framed({"type": "request", "seq": 1, "command": "a"})[:-3]
    assert DapStream(io.BytesIO(raw), io.BytesIO()).read() is None
