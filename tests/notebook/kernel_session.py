"""A real ipykernel through jupyter_client, running this checkout's pyserver."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from jupyter_client.manager import KernelManager

ROOT = Path(__file__).resolve().parents[2]


def kernel_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_LENS_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


class Kernel:
    def __init__(self, cwd: Path) -> None:
        self.manager = KernelManager(kernel_name="python3")
        self.manager.kernel_cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        self.manager.start_kernel(cwd=str(cwd), env=kernel_env())
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=120)

    def run(self, code: str) -> tuple[str, list[dict[str, Any]]]:
        """Run a cell; its stdout text and its display outputs. An error fails the test."""
        text: list[str] = []
        displays: list[dict[str, Any]] = []

        def output(message: dict[str, Any]) -> None:
            kind, content = message["msg_type"], message["content"]
            if kind == "stream":
                text.append(content["text"])
            elif kind in ("display_data", "execute_result"):
                displays.append(content["data"])
            elif kind == "error":
                text.append("\n".join(content["traceback"]))

        reply = self.client.execute_interactive(code, timeout=240, output_hook=output)
        assert reply["content"]["status"] == "ok", "".join(text)
        return "".join(text), displays

    def stop(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)
