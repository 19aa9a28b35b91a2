"""jupyter-lsp (the server side of jupyterlab-lsp) with the language-server spec of docs/editors.md: it
starts `python -m pyserver lsp` and relays its diagnostics. Runs where jupyter-lsp is installed."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from editor_files import line_index, workspace_with

manager_module = pytest.importorskip("jupyter_lsp.manager", reason="jupyter-lsp is not installed")

SPEC = {
    "numba-lens": {
        "version": 2,
        "argv": [sys.executable, "-m", "pyserver", "lsp"],
        "languages": ["python"],
        "mime_types": ["text/x-python", "text/x-ipython"],
        "display_name": "Numba Lens",
    }
}
WAIT_S = 240


async def test_jupyter_lsp_starts_the_server_from_the_spec_and_relays_diagnostics(tmp_path: Path) -> None:
    source = workspace_with(tmp_path, "kernel_with_error.py")
    manager = manager_module.LanguageServerManager(language_servers=SPEC, autodetect=False)
    manager.initialize()
    assert "numba-lens" in manager.language_servers  # the spec passed jupyter-lsp's validation
    received: list[dict[str, Any]] = []

    async def on_server_message(message: str, session: Any) -> None:
        received.append(json.loads(message))

    manager.on_server_message = on_server_message
    session = manager.sessions["numba-lens"]
    session.initialize()
    try:
        # What jupyterlab-lsp's client sends, reduced to what this check needs.
        session.write(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "processId": None,
                        "rootUri": tmp_path.as_uri(),
                        "capabilities": {},
                        # A generous analysis time-out (20 s by default): the test machine may be loaded.
                        "initializationOptions": {"trusted": True, "settings": {"timeout": 180}},
                    },
                }
            )
        )
        session.write(json.dumps({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        session.write(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "textDocument/didOpen",
                    "params": {
                        "textDocument": {
                            "uri": source.as_uri(),
                            "languageId": "python",
                            "version": 1,
                            "text": source.read_text(encoding="utf-8"),
                        }
                    },
                }
            )
        )
        diagnostics: list[dict[str, Any]] = []
        answered: set[int] = set()
        for _ in range(WAIT_S * 10):
            await asyncio.sleep(0.1)
            for message in received:
                if message.get("method") == "workspace/configuration" and message["id"] not in answered:
                    answered.add(message["id"])
                    items = message["params"]["items"]
                    session.write(
                        json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": [None] * len(items)})
                    )
            published = [
                m["params"]["diagnostics"]
                for m in received
                if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["diagnostics"]
            ]
            if published:
                diagnostics = published[-1]
                break
    finally:
        session.stop()
    initialize_result = next(m["result"] for m in received if m.get("id") == 1)
    assert initialize_result["serverInfo"]["name"] == "numba-lens"
    (diagnostic,) = diagnostics
    assert diagnostic["code"] == "typing-error"
    assert diagnostic["range"]["start"]["line"] == line_index(source, "return x + (1, 2)")
