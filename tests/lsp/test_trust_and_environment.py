"""The server without a usable analysis: an untrusted workspace (nothing of it runs) and an
interpreter whose Numba is missing or too old (the server stays up and says how to fix it)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psutil
import pytest
from lsp_session import copy_examples, start_session
from pygls.exceptions import JsonRpcException

from pyserver.versions import NUMBA_REQUIREMENT

MARKER_MODULE = """\
import pathlib
pathlib.Path(__file__).with_name("imported.marker").write_text("user code ran")

from numba import njit


@njit
def twice(x: int):
    return 2 * x
"""


async def test_untrusted_workspace_runs_nothing_and_says_so_once(tmp_path: Path) -> None:
    root = copy_examples(tmp_path / "ws", ["kernels.py"])
    (root / "marker.py").write_text(MARKER_MODULE)
    session = await start_session(root, trusted=False)
    try:
        await session.wait_for(
            lambda: any(s["state"] == "untrusted" for s in session.statuses), what="status"
        )
        uri = session.uri("marker.py")
        session.texts[uri] = MARKER_MODULE
        session.versions[uri] = 1
        from lsprotocol import types as lsp

        session.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, MARKER_MODULE))
        )
        session.save_nowait("marker.py")
        hover = await session.hover_word("marker.py", 8, "twice")
        assert hover is not None and "not trusted" in hover
        lenses = await session.code_lenses("marker.py")
        assert [lens.command.title for lens in lenses if lens.command] == [
            "Numba: types unavailable (workspace not trusted)"
        ]
        with pytest.raises(JsonRpcException, match="not trusted"):
            await session.ir_view("marker.py", 7, "llvm")
        await asyncio.sleep(2.0)  # would be enough for a (wrongly) started analysis to import the module
        assert not (root / "imported.marker").exists()
        assert session.publish_count(uri) == 0
        assert session.descendants() == []  # no worker, no Numba probe
        shown = [m.message for m in session.client.messages]
        assert len([m for m in shown if "not trusted" in m]) == 1
        assert [s["state"] for s in session.statuses] == ["untrusted"]
    finally:
        await session.shutdown()


def _shadow_numba(tmp_path: Path, body: str) -> dict[str, str]:
    """A `numba` package earlier on PYTHONPATH than the real one: what a user's broken or old
    installation looks like to the server and to any worker it would start."""
    package = tmp_path / "shadow" / "numba"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(body)
    return {"PYTHONPATH": str(tmp_path / "shadow")}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("raise ImportError('numba is not installed here (test shadow)')", "cannot be imported"),
        ("__version__ = '0.57.1'\n", "too old"),
    ],
    ids=["missing", "too-old"],
)
async def test_unusable_numba_reports_failed_with_pip_command_and_stays_up(
    tmp_path: Path, body: str, expected: str
) -> None:
    root = copy_examples(tmp_path / "ws", ["kernels.py"])
    session = await start_session(root, env=_shadow_numba(tmp_path, body))
    try:
        failed = await session.wait_for(
            lambda: [s for s in session.statuses if s["state"] == "failed"], what="failed status"
        )
        message = failed[0]["message"]
        assert expected in message and "pip install" in message and NUMBA_REQUIREMENT in message
        # Still answering: open a file, hover, lenses; nothing is analysed.
        from lsprotocol import types as lsp

        uri = session.uri("kernels.py")
        text = (root / "kernels.py").read_text()
        session.texts[uri] = text
        session.versions[uri] = 1
        session.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, text))
        )
        hover = await session.hover_word("kernels.py", 12, "walk")
        assert hover is not None and expected in hover
        lenses = await session.code_lenses("kernels.py")
        assert any(lens.command and lens.command.command == "numbaLens.debugJitFunction" for lens in lenses)
        await asyncio.sleep(1.0)
        assert len([s for s in session.statuses if s["state"] == "failed"]) == 1
        assert session.process.returncode is None
    finally:
        await session.shutdown()
    assert session.process.returncode == 0


async def test_server_exits_when_the_client_closes_stdin(tmp_path: Path) -> None:
    root = copy_examples(tmp_path / "ws", ["kernels.py"])
    session = await start_session(root, trusted=False)
    pid = session.pid
    assert session.process.stdin is not None
    session.process.stdin.close()
    await asyncio.wait_for(session.process.wait(), 30)
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    await session.client.stop()
