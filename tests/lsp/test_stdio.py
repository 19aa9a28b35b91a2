"""The server over stdio: its input read on the event loop from a pipe, and by pygls's own reader from a
regular file (which the event loop cannot watch); either way it answers, and it exits when told to or
when its input ends."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

COMMAND = [sys.executable, "-m", "pyserver", "lsp", "--log-level", "warning"]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"capabilities": {}, "processId": None},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "initialized", "params": {}}


def _framed(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def _read(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        if line.startswith(b"Content-Length: "):
            length = int(line.split(b": ")[1])
    return dict(json.loads(stream.read(length)))


def _reply(stream: IO[bytes], request_id: int) -> dict[str, Any]:
    while True:  # notifications (log messages, status) may come first
        message = _read(stream)
        if message.get("id") == request_id:
            return message


def test_over_a_pipe_it_answers_and_exits_when_told(tmp_path: Path) -> None:
    server = subprocess.Popen(COMMAND, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path)
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write(_framed(INITIALIZE) + _framed(INITIALIZED))
        server.stdin.flush()
        assert _reply(server.stdout, 1)["result"]["serverInfo"]["name"] == "numba-lens"
        server.stdin.write(_framed({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None}))
        server.stdin.flush()
        assert "result" in _reply(server.stdout, 2)
        server.stdin.write(_framed({"jsonrpc": "2.0", "method": "exit", "params": None}))
        server.stdin.flush()
        assert server.wait(timeout=60) == 0
    finally:
        server.kill()
        server.wait()


def test_from_a_file_it_answers_and_ends_with_its_input(tmp_path: Path) -> None:
    (tmp_path / "input").write_bytes(_framed(INITIALIZE) + _framed(INITIALIZED))
    with open(tmp_path / "input", "rb") as handle:
        done = subprocess.run(COMMAND, stdin=handle, stdout=subprocess.PIPE, cwd=tmp_path, timeout=120)
    replies = []
    output = done.stdout
    while output:
        header, _, rest = output.partition(b"\r\n\r\n")
        length = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        replies.append(json.loads(rest[:length]))
        output = rest[length:]
    answered = [reply for reply in replies if reply.get("id") == 1]
    assert answered and answered[0]["result"]["serverInfo"]["name"] == "numba-lens"
    assert done.returncode == 1  # the input ended without `shutdown`: not a clean exit
