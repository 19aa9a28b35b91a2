"""A real DAP client over stdio for the adapter tests: `python -m pyserver dap` as VS Code runs it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

from pyserver.debug.dap import DapStream

ROOT = Path(__file__).resolve().parents[2]
EVENT_TIMEOUT_S = 120.0


class DapClient:
    def __init__(self, log_path: str | None = None) -> None:
        env = dict(os.environ)
        if log_path:
            env["NUMBA_LENS_DAP_LOG"] = log_path
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pyserver", "dap"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            env=env,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stream = DapStream(self.proc.stdout, self.proc.stdin)  # type: ignore[arg-type]
        self.messages: list[dict[str, Any]] = []
        self.terminal_output: list[str] = []
        self.terminal_processes: list[subprocess.Popen[bytes]] = []
        self.terminal_masters: list[int] = []
        self._cond = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                message = self.stream.read()
            except (OSError, ValueError):
                message = None
            with self._cond:
                if message is None:
                    self.messages.append({"type": "_eof"})
                    self._cond.notify_all()
                    return
                self.messages.append(message)
                self._cond.notify_all()
            if message.get("type") == "request" and message.get("command") == "runInTerminal":
                self._run_in_terminal(message)

    def _run_in_terminal(self, request: dict[str, Any]) -> None:
        """What VS Code does for runInTerminal: run the command in a new terminal (here: a pty we read)."""
        arguments = request.get("arguments") or {}
        master, slave = os.openpty()
        proc = subprocess.Popen(
            arguments["args"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=arguments.get("cwd"),
            start_new_session=True,
        )
        os.close(slave)
        self.terminal_processes.append(proc)
        self.terminal_masters.append(master)

        def pump() -> None:
            while True:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                with self._cond:
                    self.terminal_output.append(data.decode("utf-8", errors="replace"))
                    self._cond.notify_all()
            os.close(master)

        threading.Thread(target=pump, daemon=True).start()
        self.stream.send(
            {
                "type": "response",
                "request_seq": request["seq"],
                "command": "runInTerminal",
                "success": True,
                "body": {"shellProcessId": proc.pid},
            }
        )

    def type_in_terminal(self, text: str) -> None:
        """Keystrokes into the terminal, as a user types them."""
        os.write(self.terminal_masters[-1], text.encode())

    def terminal_text(self) -> str:
        with self._cond:
            return "".join(self.terminal_output).replace("\r\n", "\n")

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float, what: str
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for message in self.messages:
                    if not message.get("_seen") and predicate(message):
                        message["_seen"] = True
                        return message
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    kinds = [(m.get("type"), m.get("event") or m.get("command")) for m in self.messages[-30:]]
                    raise AssertionError(f"timed out waiting for {what}; last messages: {kinds}")
                self._cond.wait(remaining)

    def request(
        self, command: str, arguments: dict[str, Any] | None = None, timeout: float = 60.0
    ) -> dict[str, Any]:
        seq = self.stream.request(command, arguments)
        return self.wait_for(
            lambda m: m.get("type") == "response" and m.get("request_seq") == seq,
            timeout,
            f"response to {command}",
        )

    def ok(
        self, command: str, arguments: dict[str, Any] | None = None, timeout: float = 60.0
    ) -> dict[str, Any]:
        response = self.request(command, arguments, timeout)
        assert response["success"], f"{command} failed: {response.get('message')}"
        return dict(response.get("body") or {})

    def event(self, name: str, timeout: float = EVENT_TIMEOUT_S, **match: Any) -> dict[str, Any]:
        def predicate(m: dict[str, Any]) -> bool:
            if m.get("type") != "event" or m.get("event") != name:
                return False
            body = m.get("body") or {}
            return all(body.get(k) == v for k, v in match.items())

        return dict(self.wait_for(predicate, timeout, f"event {name} {match}").get("body") or {})

    def events(self, name: str) -> list[dict[str, Any]]:
        with self._cond:
            return [dict(m.get("body") or {}) for m in self.messages if m.get("event") == name]

    def output_text(self) -> str:
        return "".join(b.get("output", "") for b in self.events("output"))

    def wait_output(self, text: str, timeout: float = EVENT_TIMEOUT_S) -> str:
        """The program's output once it holds `text`: its output events travel apart from the stop that
        follows the line printing it, and may arrive after it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while text not in (output := self.output_text()):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"timed out waiting for output {text!r}; output so far: {output!r}")
                self._cond.wait(remaining)
            return output

    # --- the usual sequences -------------------------------------------------------------------------
    def start(
        self,
        program: Path,
        *,
        breakpoints: dict[int, dict[str, Any]] | None = None,
        function_breakpoints: list[dict[str, Any]] | None = None,
        **launch: Any,
    ) -> dict[str, Any]:
        """initialize, launch, breakpoints, configurationDone; returns the launch response."""
        self.ok(
            "initialize",
            {
                "adapterID": "numba",
                "linesStartAt1": True,
                "pathFormat": "path",
                "supportsRunInTerminalRequest": True,
            },
        )
        arguments = {"program": str(program), "cwd": str(program.parent), **launch}
        if launch.get("module"):
            arguments.pop("program")  # `program` then only names the file the breakpoints are in
        seq = self.stream.request("launch", arguments)
        self.wait_for(
            lambda m: (
                (m.get("type") == "event" and m.get("event") == "initialized")
                or (m.get("type") == "response" and m.get("request_seq") == seq and not m.get("success"))
            ),
            EVENT_TIMEOUT_S,
            "initialized",
        )
        launch_response = self.wait_for(
            lambda m: m.get("type") == "response" and m.get("request_seq") == seq, EVENT_TIMEOUT_S, "launch"
        )
        if not launch_response["success"]:
            return launch_response
        if breakpoints is not None:
            self.last_breakpoints = self.ok(
                "setBreakpoints",
                {
                    "source": {"path": str(program)},
                    "breakpoints": [{"line": line, **extra} for line, extra in breakpoints.items()],
                },
            )["breakpoints"]
        if function_breakpoints is not None:
            self.last_function_breakpoints = self.ok(
                "setFunctionBreakpoints", {"breakpoints": function_breakpoints}
            )["breakpoints"]
        self.ok("setExceptionBreakpoints", {"filters": []})
        self.ok("configurationDone")
        return launch_response

    def attach(self, pid: int) -> None:
        """initialize, then attach to process `pid` (its breakpoints and configurationDone follow)."""
        self.ok("initialize", {"adapterID": "numba", "linesStartAt1": True, "pathFormat": "path"})
        seq = self.stream.request("attach", {"processId": pid})
        self.event("initialized", timeout=180)
        response = self.wait_for(
            lambda m: m.get("request_seq") == seq and m.get("type") == "response", 180, "attach"
        )
        assert response["success"], response.get("message")

    def stopped(self, timeout: float = EVENT_TIMEOUT_S) -> dict[str, Any]:
        return self.event("stopped", timeout)

    def top_frames(self, thread_id: int, levels: int = 20) -> list[dict[str, Any]]:
        return list(self.ok("stackTrace", {"threadId": thread_id, "levels": levels})["stackFrames"])

    def scope_variables(self, frame_id: int) -> dict[str, dict[str, dict[str, Any]]]:
        scopes = self.ok("scopes", {"frameId": frame_id})["scopes"]
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for scope in scopes:
            variables = self.ok("variables", {"variablesReference": scope["variablesReference"]})["variables"]
            out[scope["name"]] = {v["name"]: v for v in variables}
        return out

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.request("disconnect", {"terminateDebuggee": True}, timeout=30)
            except (AssertionError, OSError):
                pass
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        for terminal in self.terminal_processes:
            # The holder leaves by itself when the session ends; a terminal that outlives it is a bug.
            try:
                terminal.wait(30)
            except subprocess.TimeoutExpired:
                terminal.kill()
                terminal.wait(10)


def program_name(process: psutil.Process) -> str:
    """The program a process runs: its name, except for a program started through the dynamic loader
    (PyPI's gdb runs as `ld-linux-x86-64.so.2 .../gdb ...`), named by the file the loader runs."""
    name = process.name()
    if name.startswith(("ld-linux", "ld64")):
        command = process.cmdline()
        if len(command) > 1:
            return os.path.basename(command[1])
    return name
